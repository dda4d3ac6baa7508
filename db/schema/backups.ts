/**
 * Archive exports from the settings pages (issue 20), Mastodon's `backups`:
 * one row per requested archive. The archive job
 * (jobs/archive_export.ts) builds the zip and records its file (a key
 * `archives/…` of the media store, never served but through the owner's
 * download route) and size; a failed build records no file. Rows and files
 * go when they expire (actors/import_export/archive.ts).
 */
import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { users } from "./core.ts";

export const backups = pgTable("backups", {
  id: id("id").primaryKey(),
  userId: id("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  /** queued, running, done or failed. */
  state: text("state").notNull().default("queued"),
  /** The zip's media store key (`archives/archive-….zip`), once it is built. */
  fileKey: text("file_key"),
  /** The zip's size in bytes, once it is built. */
  size: bigint("size", { mode: "number" }),
  createdAt: ts("created_at").notNull().defaultNow(),
  /** When the job finished (built or failed). */
  processedAt: ts("processed_at"),
}, (t) => [index("backups_user_idx").on(t.userId, t.createdAt)]);
