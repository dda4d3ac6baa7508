/**
 * Which days each user was active (used the API with a token, or the web
 * pages with a session), for the admin `active_users` measure
 * (actors/admin_metrics/measures.ts), as Mastodon counts sign-in activity
 * rather than posts. One `user_activity_days` row per user and UTC day; this
 * process remembers the days it wrote, so a user's steady stream of requests
 * costs one idempotent INSERT per day and process, never a write per request.
 */
import type { Executor } from "../../db/connection.ts";
import { userActivityDays } from "../../db/schema/mod.ts";

const DAY_MS = 86_400_000;
/** A crude bound on each memo: forgetting only costs one idempotent write per user. */
const MEMO_MAX = 100_000;

/**
 * What this process already wrote of users' activity (process/core.ts holds
 * one): userId → the day number (days since the epoch) last recorded here,
 * and, for api/middleware/auth.ts, the week and the last sign-in written.
 */
export class ActivityMemo {
  readonly days = new Map<string, number>();
  readonly weeks = new Map<string, number>();
  readonly signIns = new Map<string, number>();

  /** Notes `value` under `key` in one of the memos, within its bound. */
  remember(map: Map<string, number>, key: string, value: number): void {
    if (map.size >= MEMO_MAX) map.clear();
    map.set(key, value);
  }

  /** Forgets everything (tests that need a fresh start). */
  clear(): void {
    this.days.clear();
    this.weeks.clear();
    this.signIns.clear();
  }
}

/** Records that `userId` was active on the UTC day of `now` (at most one write per day). */
export async function recordActiveDay(
  db: Executor,
  memo: ActivityMemo,
  userId: string,
  now = new Date(),
): Promise<void> {
  const dayNumber = Math.floor(now.getTime() / DAY_MS);
  if (memo.days.get(userId) === dayNumber) return;
  const day = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
  await db.insert(userActivityDays).values({ userId, day }).onConflictDoNothing();
  memo.remember(memo.days, userId, dayNumber);
}
