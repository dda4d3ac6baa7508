/**
 * Home and list timelines are filled on write: when a status is created (or
 * boosted), one INSERT … SELECT puts it into the feeds of everyone who should
 * see it, inside the creating transaction.
 */
import type { Executor } from "../../db/connection.ts";
import type { statuses } from "../../db/schema.ts";

export type StatusRow = typeof statuses.$inferSelect;

/** Inserts a new status (or boost) into the home and list feeds that should show it. */
export async function fanOutStatus(_tx: Executor, _status: StatusRow): Promise<void> {
  // Filled in by the timelines work (issue 4): followers, followed tags, lists, filters.
}

/** Removes a deleted status (and boosts of it) from every feed. */
export async function removeFromFeeds(_tx: Executor, _statusId: string): Promise<void> {
  // Filled in by the timelines work (issue 4).
}
