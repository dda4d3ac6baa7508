/**
 * The InteractionRequest entity (GoToSocial's client API): a favourite,
 * reply or boost of the user's status that waits for (or got) their
 * decision. `status` is the status interacted with; `reply` the held reply
 * (replies only, while it exists); `accepted_at`/`rejected_at` only once
 * decided. Pages are hydrated in batches: one account load, one status load.
 */
import type { AppContext } from "../../context.ts";
import type { InteractionRequestRow } from "../../db/queries/interaction_requests.ts";
import { type Account, loadAccountEntities } from "./account.ts";
import { serializeStatusIds, type StatusJson } from "./status.ts";

/** The InteractionRequest entity. */
export interface InteractionRequestJson {
  id: string;
  type: string;
  created_at: string;
  account: Account;
  status: StatusJson;
  reply?: StatusJson;
  accepted_at?: string;
  rejected_at?: string;
}

/** Serializes requests of the viewer's statuses, in order; rows whose status is gone are skipped. */
export async function serializeInteractionRequests(
  ctx: AppContext,
  rows: readonly InteractionRequestRow[],
  viewerAccountId: string,
): Promise<InteractionRequestJson[]> {
  const viewer = { accountId: viewerAccountId };
  const statusIds = rows.flatMap((r) =>
    r.type === "reply" && r.statusId ? [r.targetStatusId, r.statusId] : [r.targetStatusId]
  );
  const [accounts, statuses] = await Promise.all([
    loadAccountEntities(ctx.database.db, ctx.config, rows.map((r) => r.accountId)),
    serializeStatusIds(ctx, statusIds, viewer),
  ]);
  const accountsById = new Map(accounts.map((a) => [a.id, a]));
  const statusesById = new Map(statuses.map((s) => [s.id, s]));
  const out: InteractionRequestJson[] = [];
  for (const row of rows) {
    const account = accountsById.get(row.accountId);
    const status = statusesById.get(row.targetStatusId);
    if (!account || !status) continue;
    const reply = row.type === "reply" && row.statusId ? statusesById.get(row.statusId) : undefined;
    const decided = row.decidedAt?.toISOString();
    out.push({
      id: row.id,
      type: row.type,
      created_at: row.createdAt.toISOString(),
      account,
      status,
      ...(reply ? { reply } : {}),
      ...(decided && row.state === "accepted" ? { accepted_at: decided } : {}),
      ...(decided && row.state === "rejected" ? { rejected_at: decided } : {}),
    });
  }
  return out;
}
