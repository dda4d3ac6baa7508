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
/** A crude bound on the memo: forgetting only costs one idempotent write per user. */
const MEMO_MAX = 100_000;
/** userId → the day number (days since the epoch) this process last recorded. */
const recordedDays = new Map<string, number>();

/** Records that `userId` was active on the UTC day of `now` (at most one write per day). */
export async function recordActiveDay(
  db: Executor,
  userId: string,
  now = new Date(),
): Promise<void> {
  const dayNumber = Math.floor(now.getTime() / DAY_MS);
  if (recordedDays.get(userId) === dayNumber) return;
  const day = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
  await db.insert(userActivityDays).values({ userId, day }).onConflictDoNothing();
  if (recordedDays.size >= MEMO_MAX) recordedDays.clear();
  recordedDays.set(userId, dayNumber);
}

/** Forgets what this process recorded (tests that need a fresh start). */
export function resetActiveDayMemo(): void {
  recordedDays.clear();
}
