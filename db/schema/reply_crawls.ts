/**
 * Crawls of remote replies collections (issue 21, migration 0035): one row
 * per status whose `replies` collection we crawled, with when, so the same
 * collection is not crawled again within THREAD_CRAWL_COOLDOWN. The
 * status a user opened (the root of a crawl) also carries the async refresh
 * its context answer announced (`Mastodon-Async-Refresh`): its opaque id,
 * running or finished, and how many new statuses it stored.
 */
import { integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { statuses } from "./statuses.ts";

export const replyCrawls = pgTable("reply_crawls", {
  statusId: id("status_id").primaryKey().references(() => statuses.id, { onDelete: "cascade" }),
  crawledAt: ts("crawled_at").notNull().defaultNow(),
  /** The async refresh's id (random, unguessable); null for statuses crawled inside another crawl. */
  refreshId: text("refresh_id"),
  /** running or finished; null with refreshId. */
  state: text("state"),
  /** New statuses stored so far by the refresh. */
  resultCount: integer("result_count").notNull().default(0),
  finishedAt: ts("finished_at"),
}, (t) => [uniqueIndex("reply_crawls_refresh_idx").on(t.refreshId)]);
