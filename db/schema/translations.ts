/**
 * Machine translations of statuses (actors/translation/): one row per status
 * and target language, the last translation made. `source_digest` is a hash
 * of what was sent to the backend (the texts and their language), so an edit
 * that changes them makes the row stale and the next request translates
 * again and overwrites it; an edit that changes nothing translated keeps it.
 * Rows go with their status.
 */
import { jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { statuses } from "./statuses.ts";

/** What a translation holds (the Translation entity is built from it). */
export interface StoredTranslation {
  content: string;
  spoilerText: string;
  /** Translated option titles, in the poll's order; null: the status has no poll. */
  pollOptions: string[] | null;
  media: { id: string; description: string }[];
  detectedSourceLanguage: string | null;
  provider: string;
}

export const statusTranslations = pgTable("status_translations", {
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  /** The target language, as the backend was asked (`de`, `pt-BR`). */
  language: text("language").notNull(),
  sourceDigest: text("source_digest").notNull(),
  translation: jsonb("translation").$type<StoredTranslation>().notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.statusId, t.language] })]);
