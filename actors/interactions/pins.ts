/**
 * Pinning statuses to one's profile (the featured collection), as
 * Mastodon's StatusPinValidator has it: only one's own statuses, never a
 * boost nor a direct status (private ones may be pinned since 3.5), and at
 * most `config.limits.maxPinnedStatuses` for a local account. Every broken
 * rule is reported, joined, as Mastodon does (422 "Validation failed: …").
 *
 * Pinning again is not an error (the status stays pinned, limit unchecked).
 * Add and Remove to the followers are recorded with the change.
 */
import { and, count, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { newId } from "../../db/ids.ts";
import { statusPins } from "../../db/schema/mod.ts";
import { Problems } from "../../model/errors.ts";
import type { PinSnapshot } from "../outbox/interactions.ts";
import { actingAccount, lockFor, type StatusRow, visibleStatus } from "./target.ts";
import { recordDelivery } from "../outbox/deliveries.ts";

/** Mastodon's messages (statuses.pin_errors). */
export const PIN_ERRORS = {
  reblog: "A boost cannot be pinned",
  ownership: "Someone else's post cannot be pinned",
  direct: "Posts that are only visible to mentioned users cannot be pinned",
  limit: "You have already pinned the maximum number of posts",
} as const;

/**
 * `accountId` pins `statusId`. Returns the status.
 *
 * @throws NotFoundError when the status is missing or hidden from the account
 * @throws ValidationError when a pin rule is broken
 */
export async function pin(
  app: AppContext,
  accountId: string,
  statusId: string,
): Promise<StatusRow> {
  return await app.database.db.transaction(async (tx) => {
    const account = await actingAccount(tx, accountId);
    const status = await visibleStatus(tx, accountId, statusId);
    // Two pins at once must not both slip under the limit.
    await lockFor(tx, `pins:${accountId}`);
    const [existing] = await tx.select({ id: statusPins.id }).from(statusPins)
      .where(and(eq(statusPins.accountId, accountId), eq(statusPins.statusId, status.id)))
      .limit(1);
    if (existing) return status;
    const problems = new Problems();
    if (status.reblogOfId != null) problems.add("base", "ERR_INVALID", PIN_ERRORS.reblog);
    if (status.accountId !== accountId) problems.add("base", "ERR_INVALID", PIN_ERRORS.ownership);
    if (status.visibility === "direct") problems.add("base", "ERR_INVALID", PIN_ERRORS.direct);
    if (account.domain == null) {
      const [{ n }] = await tx.select({ n: count() }).from(statusPins)
        .where(eq(statusPins.accountId, accountId));
      if (n >= app.config.limits.maxPinnedStatuses) {
        problems.add("base", "ERR_LIMIT", PIN_ERRORS.limit);
      }
    }
    problems.throwIfAny();
    const [row] = await tx.insert(statusPins).values({
      id: newId(),
      accountId,
      statusId: status.id,
    })
      .returning();
    // A remote account's Add arrives here too; the outbox sends only ours.
    await recordDelivery(tx, "statusPinned", snapshotOf(row));
    return status;
  });
}

/**
 * `accountId` unpins `statusId` (not pinned is no error). Returns the status.
 *
 * @throws NotFoundError when the status is missing or hidden from the account
 */
export async function unpin(
  app: AppContext,
  accountId: string,
  statusId: string,
): Promise<StatusRow> {
  return await app.database.db.transaction(async (tx) => {
    const status = await visibleStatus(tx, accountId, statusId);
    const [row] = await tx.delete(statusPins)
      .where(and(eq(statusPins.accountId, accountId), eq(statusPins.statusId, status.id)))
      .returning();
    if (row) await recordDelivery(tx, "statusUnpinned", snapshotOf(row));
    return status;
  });
}

function snapshotOf(row: typeof statusPins.$inferSelect): PinSnapshot {
  return { id: row.id, accountId: row.accountId, statusId: row.statusId };
}
