/**
 * The warnings staff gave an account (account_warnings, written by
 * actors/moderation/account_actions.ts), newest first, for the staff
 * account page.
 */
import { desc, eq } from "drizzle-orm";
import type { Executor } from "../connection.ts";
import { accountWarnings } from "../schema/mod.ts";

export type AccountWarningRow = typeof accountWarnings.$inferSelect;

/** The account's latest `limit` warnings, newest first. */
export async function accountWarningsOf(
  db: Executor,
  accountId: string,
  limit: number,
): Promise<AccountWarningRow[]> {
  return await db.select().from(accountWarnings)
    .where(eq(accountWarnings.targetAccountId, accountId))
    .orderBy(desc(accountWarnings.id)).limit(limit);
}
