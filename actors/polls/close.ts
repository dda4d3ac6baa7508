/**
 * Closing polls on time. The worker calls {@link closeDuePolls} every few
 * seconds (see {@link startPollExpiry}): it finds polls whose `expires_at`
 * has passed and whose end was not processed yet (`closed_at` null, the
 * partial index polls_open_idx), and in one transaction per batch sets
 * `closed_at` and notifies, with `poll`, the author when local and every
 * local voter, as Mastodon's PollExpirationNotifyWorker. After the commit a
 * local poll's final results go out as Update(Question).
 *
 * Rows are claimed with FOR UPDATE SKIP LOCKED, so several workers sharing
 * one PostgreSQL database never process a poll twice; a crash before the
 * commit leaves the poll open for the next run.
 */
import { and, eq, inArray, isNull, lte, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, polls, pollVotes, statuses } from "../../db/schema.ts";
import { notify } from "../notifications/notify.ts";
import { type PeriodicJob, runEvery } from "./periodic.ts";

const logger = getLogger(["rookery", "polls"]);

/** How many polls one transaction closes. */
const BATCH = 100;
/** How often the worker looks for polls to close. */
export const POLL_EXPIRY_INTERVAL_MS = 5_000;

/**
 * Closes the polls due at `now` (all of them, batch by batch); returns how
 * many were closed.
 */
export async function closeDuePolls(ctx: AppContext, now = new Date()): Promise<number> {
  let total = 0;
  while (true) {
    const closed = await closeBatch(ctx, now);
    total += closed.length;
    for (const pollId of closed) {
      try {
        await ctx.outbox.pollUpdated(pollId);
      } catch (error) {
        logger.warn("Could not queue the final results of {poll}: {error}", {
          poll: pollId,
          error,
        });
      }
    }
    if (closed.length < BATCH) return total;
  }
}

/** Closes one batch; returns the ids of the closed local polls whose results should go out. */
async function closeBatch(ctx: AppContext, now: Date): Promise<string[]> {
  return await ctx.database.db.transaction(async (tx) => {
    const due = await tx.select({
      id: polls.id,
      accountId: polls.accountId,
      statusId: polls.statusId,
    }).from(polls)
      .where(and(isNull(polls.closedAt), lte(polls.expiresAt, now)))
      .orderBy(polls.expiresAt).limit(BATCH).for("update", { skipLocked: true });
    if (due.length === 0) return [];
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
    return due.filter((p) => localAuthor.has(p.id)).map((p) => p.id);
  });
}

/** Starts the worker's poll expiry job. */
export function startPollExpiry(
  ctx: AppContext,
  intervalMs = POLL_EXPIRY_INTERVAL_MS,
): PeriodicJob {
  return runEvery("close polls", intervalMs, () => closeDuePolls(ctx));
}
