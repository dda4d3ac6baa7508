/**
 * Annual reports ("Wrapstodon", issue 21): one row per local account and
 * year, written once by the annual report job (actors/annual_reports/) and
 * read by /api/v1/annual_reports. `data` is the report in Mastodon's schema
 * `schema_version` (1, as Mastodon 4.5); `viewed_at` is set when the owner
 * marks it read, which takes it off the list of pending reports.
 */
import { integer, jsonb, pgTable, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";

export const generatedAnnualReports = pgTable("generated_annual_reports", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  year: integer("year").notNull(),
  schemaVersion: integer("schema_version").notNull(),
  data: jsonb("data").$type<Record<string, unknown>>().notNull(),
  viewedAt: ts("viewed_at"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("generated_annual_reports_account_year_idx").on(t.accountId, t.year),
]);
