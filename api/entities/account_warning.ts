/**
 * The AccountWarning entity (Mastodon's REST::AccountWarningSerializer), shown
 * to the warned person inside `moderation_warning` notifications: id, action,
 * text, status_ids, target_account (the Account entity), appeal and
 * created_at.
 *
 * - `status_ids` is null when the warning came without a report, as Mastodon
 *   stores no list then; with a report it is the report's statuses (strings).
 * - `appeal` is always null: Rookery has no appeals.
 */
import { inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { accountWarnings } from "../../db/schema/mod.ts";
import { type Account, loadAccountEntities } from "./account.ts";

/** The AccountWarning entity. */
export interface AccountWarningJson {
  id: string;
  action: string;
  text: string;
  status_ids: string[] | null;
  target_account: Account;
  appeal: null;
  created_at: string;
}

/** Serializes warnings by id (one batch of rows, one of accounts), keyed by id. */
export async function accountWarningsById(
  ctx: AppContext,
  ids: readonly (string | null)[],
): Promise<Map<string, AccountWarningJson>> {
  const wanted = [...new Set(ids.filter((id): id is string => id != null))];
  if (wanted.length === 0) return new Map();
  const rows = await ctx.database.db.select().from(accountWarnings)
    .where(inArray(accountWarnings.id, wanted));
  const targets = await loadAccountEntities(
    ctx.database.db,
    ctx.mediaUrls,
    rows.map((r) => r.targetAccountId),
  );
  const targetsById = new Map(targets.map((a) => [a.id, a]));
  const out = new Map<string, AccountWarningJson>();
  for (const row of rows) {
    const target = targetsById.get(row.targetAccountId);
    if (!target) continue;
    out.set(row.id, {
      id: row.id,
      action: row.action,
      text: row.text,
      status_ids: row.reportId == null && row.statusIds.length === 0
        ? null
        : row.statusIds.map(String),
      target_account: target,
      appeal: null,
      created_at: row.createdAt.toISOString(),
    });
  }
  return out;
}
