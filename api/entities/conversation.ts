/**
 * The Conversation entity: `{id, unread, accounts, last_status}`. A page is
 * serialized with one account query and one status hydration, and rows
 * whose last status the viewer may no longer see are left out.
 */
import { and, inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { statuses } from "../../db/schema/mod.ts";
import { visibleStatusFilter } from "../../db/queries/visibility.ts";
import type { AccountConversationRow } from "../../db/queries/timelines.ts";
import { type Account, loadAccountEntities } from "./account.ts";
import { serializeStatuses, type StatusJson } from "./status.ts";

export interface ConversationJson {
  id: string;
  unread: boolean;
  accounts: Account[];
  last_status: StatusJson | null;
}

/** Serializes conversations of `viewerId`, in the order given. */
export async function serializeConversations(
  ctx: AppContext,
  rows: readonly AccountConversationRow[],
  viewerId: string,
): Promise<ConversationJson[]> {
  if (rows.length === 0) return [];
  const { db } = ctx.database;
  const statusIds = [...new Set(rows.map((r) => r.lastStatusId).filter((id) => id != null))];
  const statusRows = statusIds.length
    ? await db.select().from(statuses)
      .where(and(inArray(statuses.id, statusIds), visibleStatusFilter(viewerId)))
    : [];
  const statusJson = new Map(
    (await serializeStatuses(ctx, statusRows, { accountId: viewerId })).map((s) => [s.id, s]),
  );
  // Mastodon shows the owner themselves when nobody else takes part (a note to self).
  const accountIds = rows.flatMap((r) =>
    r.participantAccountIds.length ? r.participantAccountIds : [viewerId]
  );
  const accountsById = new Map(
    (await loadAccountEntities(db, ctx.mediaUrls, accountIds)).map((a) => [a.id, a]),
  );
  const out: ConversationJson[] = [];
  for (const row of rows) {
    const lastStatus = row.lastStatusId ? statusJson.get(row.lastStatusId) : undefined;
    if (!lastStatus) continue;
    const ids = row.participantAccountIds.length ? row.participantAccountIds : [viewerId];
    out.push({
      id: row.id,
      unread: row.unread,
      accounts: ids.map((id) => accountsById.get(id)).filter((a): a is Account => a != null),
      last_status: lastStatus,
    });
  }
  return out;
}
