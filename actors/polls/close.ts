/**
 * Closing polls on time. The worker calls {@link closeDuePolls} every few
 * seconds (the periodic runner, jobs/periodic.ts): it finds polls whose `expires_at`
 * has passed and whose end was not processed yet (`closed_at` null, the
 * partial index polls_open_idx), and in one transaction per batch sets
 * `closed_at` and notifies, with `poll`, the author when local and every
 * local voter, as Mastodon's PollExpirationNotifyWorker; the same
 * transaction records the Update(Question) of a local poll's final results.
 *
 * Rows are claimed with FOR UPDATE SKIP LOCKED, so several workers sharing
 * one PostgreSQL database never process a poll twice; a crash before the
 * commit leaves the poll open for the next run.
 */
import { and, eq, inArray, isNull, lte, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { accounts, polls, pollVotes, statuses } from "../../db/schema/mod.ts";
import { notify } from "../notifications/notify.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { newId } from "../../db/ids.ts";

/** How many polls one transaction closes. */
const BATCH = 100;

/**
 * Closes the polls due at `now` (all of them, batch by batch); returns how
 * many were closed.
 */
export async function closeDuePolls(ctx: AppContext, now = new Date()): Promise<number> {
  let total = 0;
  while (true) {
    const closed = await closeBatch(ctx, now);
    total += closed;
    if (closed < BATCH) return total;
  }
}

/** Closes one batch, recording the final results of local polls; returns how many closed. */
async function closeBatch(ctx: AppContext, now: Date): Promise<number> {
  return await ctx.database.db.transaction(async (tx) => {
    const due = await tx.select({
      id: polls.id,
      accountId: polls.accountId,
      statusId: polls.statusId,
    }).from(polls)
      .where(and(isNull(polls.closedAt), lte(polls.expiresAt, now)))
      .orderBy(polls.expiresAt).limit(BATCH).for("update", { skipLocked: true });
    if (due.length === 0) return 0;
    const ids = due.map((p) => p.id);
    await tx.update(polls).set({ closedAt: now }).where(inArray(polls.id, ids));

    // Only polls of live statuses notify anyone.
    const live = await tx.select({
      pollId: polls.id,
      authorLocal: sql<boolean>`${accounts.domain} IS NULL`,
    })
      .from(polls)
      .innerJoin(statuses, eq(statuses.id, polls.statusId))
      .innerJoin(accounts, eq(accounts.id, polls.accountId))
      .where(and(inArray(polls.id, ids), isNull(statuses.deletedAt)));
    const liveIds = new Set(live.map((l) => l.pollId));
    const localAuthor = new Set(live.filter((l) => l.authorLocal).map((l) => l.pollId));
    const voters = liveIds.size
      ? await tx.selectDistinct({ pollId: pollVotes.pollId, accountId: pollVotes.accountId })
        .from(pollVotes)
        .innerJoin(accounts, eq(accounts.id, pollVotes.accountId))
        .where(and(inArray(pollVotes.pollId, [...liveIds]), isNull(accounts.domain)))
      : [];
    for (const poll of due) {
      if (!liveIds.has(poll.id)) continue;
      const base = {
        type: "poll" as const,
        fromAccountId: poll.accountId,
        statusId: poll.statusId,
      };
      if (localAuthor.has(poll.id)) await notify(tx, { ...base, accountId: poll.accountId });
      for (const v of voters) {
        if (v.pollId === poll.id && v.accountId !== poll.accountId) {
          await notify(tx, { ...base, accountId: v.accountId });
        }
      }
    }
    for (const poll of due) {
      if (localAuthor.has(poll.id)) await recordDelivery(tx, "pollUpdated", poll.id, newId());
    }
    return due.length;
  });
}
