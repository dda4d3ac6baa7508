/**
 * CSV imports from the settings pages (issue 20): one row per uploaded file,
 * holding its parsed rows and the job's progress. The import job
 * (jobs/data_import.ts) works through `rows` in batches from
 * `processed_rows`, so a restart resumes where it stopped; a finished import
 * keeps its figures and drops its rows.
 */
import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";

export const dataImports = pgTable("data_imports", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  /** following, blocking, muting, domain_blocking, bookmarks or lists. */
  kind: text("kind").notNull(),
  /** merge or overwrite. */
  mode: text("mode").notNull(),
  /** queued, running or finished. */
  state: text("state").notNull().default("queued"),
  /** The file's rows, each an array of the cells the kind reads. */
  rows: jsonb("rows").$type<string[][]>().notNull().default([]),
  totalRows: integer("total_rows").notNull().default(0),
  processedRows: integer("processed_rows").notNull().default(0),
  failedRows: integer("failed_rows").notNull().default(0),
  createdAt: ts("created_at").notNull().defaultNow(),
  finishedAt: ts("finished_at"),
}, (t) => [index("data_imports_account_idx").on(t.accountId, t.id)]);
