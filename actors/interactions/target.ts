/**
 * What the interaction commands share: finding the status acted on (only
 * when the actor may see it, else "Record not found"), following a boost to
 * the boosted status, and serializing concurrent commands on the same pair.
 * (Each command records its deliveries in its transaction: actors/outbox/deliveries.ts.)
 */
import { eq, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accounts, statuses } from "../../db/schema/mod.ts";
import { findVisibleStatus } from "../../db/queries/visibility.ts";
import { NotFoundError } from "../../model/errors.ts";

export { NotPermittedError } from "../relationships/follow_rows.ts";

export type StatusRow = typeof statuses.$inferSelect;
export type AccountRow = typeof accounts.$inferSelect;

/**
 * The status `statusId` when `accountId` may see it; a missing, deleted or
 * hidden status raises NotFoundError, so the API answers all three alike.
 */
export async function visibleStatus(
  tx: Executor,
  accountId: string,
  statusId: string,
): Promise<StatusRow> {
  const row = await findVisibleStatus(tx, accountId, statusId);
  if (!row) throw new NotFoundError();
  return row;
}

/**
 * The status an interaction really concerns: a boost stands for the status
 * it boosts (favouriting, bookmarking or boosting a boost acts on the
 * original, as Mastodon's models do).
 */
export async function originalOf(
  tx: Executor,
  accountId: string,
  status: StatusRow,
): Promise<StatusRow> {
  if (status.reblogOfId == null) return status;
  return await visibleStatus(tx, accountId, status.reblogOfId);
}

/** The visible status behind `statusId`, boosts followed to their original. */
export async function visibleOriginal(
  tx: Executor,
  accountId: string,
  statusId: string,
): Promise<StatusRow> {
  return await originalOf(tx, accountId, await visibleStatus(tx, accountId, statusId));
}

/**
 * The id an undo acts on: the boosted status's for a boost, else `statusId`
 * itself. Not checked for visibility: one may take back what one holds on a
 * status that became hidden since.
 */
export async function originalIdOf(tx: Executor, statusId: string): Promise<string> {
  const [named] = await tx.select({ reblogOfId: statuses.reblogOfId }).from(statuses)
    .where(eq(statuses.id, statusId)).limit(1);
  return named?.reblogOfId ?? statusId;
}

/** The acting account; a missing or deleted one is NotFoundError. */
export async function actingAccount(tx: Executor, accountId: string): Promise<AccountRow> {
  const [account] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
  if (!account || account.deletedAt) throw new NotFoundError();
  return account;
}

/**
 * Serializes commands on one key until the transaction ends (two boosts of
 * the same status by the same account, two pins racing past the limit):
 * the checks that follow then see each other's writes.
 */
export async function lockFor(tx: Executor, key: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}
