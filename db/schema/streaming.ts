/**
 * Streaming events too large for a NOTIFY payload (PostgreSQL refuses 8000
 * bytes or more): the bus (actors/streaming/bus.ts) stores them here and
 * notifies their id. Rows are read at once by every listening process and
 * pruned after a few minutes.
 */
import { jsonb, pgTable } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";

export const streamEvents = pgTable("stream_events", {
  id: id("id").primaryKey(),
  payload: jsonb("payload").notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
});
