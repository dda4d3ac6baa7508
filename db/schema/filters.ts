/**
 * Filters (Mastodon's CustomFilter): an account's named groups of keywords
 * and statuses, each applied in some contexts (home, notifications, public,
 * thread, account) with an action (warn, hide, blur), until it expires.
 *
 * Keywords and statuses repeat their filter's account_id so that the entity
 * cache's invalidation trigger (migration 0013) can name the account from
 * the row alone, even while a cascade removes the filter above it.
 */
import { sql } from "drizzle-orm";
import { boolean, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";
import { statuses } from "./statuses.ts";

export const customFilters = pgTable("custom_filters", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  title: text("title").notNull(),
  /** Some of home, notifications, public, thread, account. */
  context: text("context").array().notNull().default(sql`'{}'::text[]`),
  /** warn, hide or blur. */
  action: text("action").notNull().default("warn"),
  expiresAt: ts("expires_at"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [index("custom_filters_account_idx").on(t.accountId, t.id)]);

export const customFilterKeywords = pgTable("custom_filter_keywords", {
  id: id("id").primaryKey(),
  customFilterId: id("custom_filter_id").notNull().references(() => customFilters.id, {
    onDelete: "cascade",
  }),
  /** The filter's account (see the module comment). */
  accountId: id("account_id").notNull(),
  keyword: text("keyword").notNull(),
  wholeWord: boolean("whole_word").notNull().default(true),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [
  index("custom_filter_keywords_filter_idx").on(t.customFilterId, t.id),
  index("custom_filter_keywords_account_idx").on(t.accountId),
]);

export const customFilterStatuses = pgTable("custom_filter_statuses", {
  id: id("id").primaryKey(),
  customFilterId: id("custom_filter_id").notNull().references(() => customFilters.id, {
    onDelete: "cascade",
  }),
  /** The filter's account (see the module comment). */
  accountId: id("account_id").notNull(),
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("custom_filter_statuses_pair_idx").on(t.customFilterId, t.statusId),
  index("custom_filter_statuses_status_idx").on(t.statusId),
]);
