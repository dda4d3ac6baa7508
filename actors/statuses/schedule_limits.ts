/**
 * The limits on scheduling a status (Mastodon's ScheduledStatus
 * validations): how far ahead, how many in all and per day. Apart from
 * scheduling (schedule.ts) and managing scheduled statuses
 * (actors/statuses/scheduled_statuses.ts) because both check them.
 */
import { and, count, eq, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { scheduledStatuses } from "../../db/schema/mod.ts";
import { invalid } from "./errors.ts";

/** A scheduled time must be at least this far ahead (Mastodon: 5 minutes). */
export const MIN_SCHEDULE_AHEAD_MS = 5 * 60 * 1000;

/** The message Mastodon answers for a time that is too close or past. */
export const SCHEDULED_TOO_EARLY = "Scheduled at The scheduled date must be in the future";

/** Mastodon's ScheduledStatus::TOTAL_LIMIT. */
export const SCHEDULED_TOTAL_LIMIT = 300;
/** Mastodon's ScheduledStatus::DAILY_LIMIT (per UTC day of `scheduled_at`). */
export const SCHEDULED_DAILY_LIMIT = 25;
/**
 * Refuses a scheduled time less than five minutes ahead, or one past the
 * account's total or daily limit, with Mastodon's messages (collected into
 * one 422 {@link StatusError}). `excludeId` leaves the row being rescheduled
 * out of the counts. Call it inside the transaction that writes the row: it
 * locks the account row so concurrent schedulings cannot both squeeze in.
 */
export async function checkScheduleLimits(
  tx: Executor,
  accountId: string,
  scheduledAt: Date,
  options: { excludeId?: string; now?: Date } = {},
): Promise<void> {
  const now = options.now ?? new Date();
  const reasons: string[] = [];
  if (!(scheduledAt.getTime() - now.getTime() >= MIN_SCHEDULE_AHEAD_MS)) {
    reasons.push(SCHEDULED_TOO_EARLY);
  }
  await tx.execute(sql`SELECT id FROM accounts WHERE id = ${accountId}::bigint FOR UPDATE`);
  const mine = and(
    eq(scheduledStatuses.accountId, accountId),
    options.excludeId ? sql`${scheduledStatuses.id} <> ${options.excludeId}::bigint` : undefined,
  );
  const [{ total, sameDay }] = await tx.select({
    total: count(),
    sameDay: sql<
      number
    >`count(*) FILTER (WHERE (${scheduledStatuses.scheduledAt} AT TIME ZONE 'UTC')::date
      = (${scheduledAt.toISOString()}::timestamptz AT TIME ZONE 'UTC')::date)`.mapWith(Number),
  }).from(scheduledStatuses).where(mine);
  if (total >= SCHEDULED_TOTAL_LIMIT) {
    reasons.push(`You have exceeded the limit of ${SCHEDULED_TOTAL_LIMIT} scheduled posts`);
  }
  if (sameDay >= SCHEDULED_DAILY_LIMIT) {
    reasons.push(
      `You have exceeded the limit of ${SCHEDULED_DAILY_LIMIT} scheduled posts for today`,
    );
  }
  if (reasons.length) throw invalid(reasons.join(", "));
}
