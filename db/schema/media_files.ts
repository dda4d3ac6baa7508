/**
 * Media files whose rows are gone and that wait to be deleted from the media
 * store (actors/media/discarded.ts). A command that removes rows records
 * their files here in its own transaction, so a rollback keeps both the rows
 * and the files, and a crash after the commit leaves the record for the
 * worker to finish.
 */
import { pgTable, text } from "drizzle-orm/pg-core";
import { ts } from "./columns.ts";

export const mediaFileDeletions = pgTable("media_file_deletions", {
  /** The file's key in the media store. */
  key: text("key").primaryKey(),
  createdAt: ts("created_at").notNull().defaultNow(),
});
