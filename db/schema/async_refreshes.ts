/**
 * Background refreshes announced by a `Mastodon-Async-Refresh` header and
 * polled at /api/v1_alpha/async_refreshes/:id (migration 0045; today the
 * generation of a year's annual report; thread crawls keep theirs on
 * `reply_crawls`). At most one running refresh per kind and subject.
 */
import { sql } from "drizzle-orm";
import { integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { ts } from "./columns.ts";

export const asyncRefreshes = pgTable("async_refreshes", {
  /** Random and unguessable. */
  id: text("id").primaryKey(),
  /** What is refreshed, e.g. `annual_report`. */
  kind: text("kind").notNull(),
  /** Of what, e.g. `<account id>:<year>`. */
  subject: text("subject").notNull(),
  /** running or finished. */
  state: text("state").notNull().default("running"),
  resultCount: integer("result_count").notNull().default(0),
  createdAt: ts("created_at").notNull().defaultNow(),
  finishedAt: ts("finished_at"),
}, (t) => [
  uniqueIndex("async_refreshes_running_idx").on(t.kind, t.subject)
    .where(sql`${t.state} = 'running'`),
]);
