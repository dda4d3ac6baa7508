/**
 * Moderation records. A report is one account's complaint about another
 * (Mastodon's Report): filed by a local user through the API, or received
 * from another server as a `Flag`, then handled by staff through the admin
 * API and tools (action_taken_at, assigned_account_id, action_taken_by).
 */
import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";

export const reports = pgTable("reports", {
  id: id("id").primaryKey(),
  /**
   * Who reported: a local account, or for a received Flag the remote actor
   * that sent it (kept when known, as Mastodon keeps it); null once that
   * account is gone.
   */
  accountId: id("account_id").references(() => accounts.id, { onDelete: "set null" }),
  /** The account reported. */
  targetAccountId: id("target_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  /** Statuses of the target attached for context (ids, as strings). */
  statusIds: jsonb("status_ids").$type<string[]>().notNull().default([]),
  comment: text("comment").notNull().default(""),
  /** spam, legal, violation or other. */
  category: text("category").notNull().default("other"),
  /** Collections of the target attached for context (ids, as strings), or null. */
  collectionIds: jsonb("collection_ids").$type<string[] | null>(),
  /** Instance rules cited (violation reports only), or null. */
  ruleIds: jsonb("rule_ids").$type<string[] | null>(),
  /** A copy went to the target's server as a Flag. */
  forwarded: boolean("forwarded").notNull().default(false),
  /** Domains the reporter asked to forward to (normalized). */
  forwardToDomains: jsonb("forward_to_domains").$type<string[]>().notNull().default([]),
  /** The Flag activity's id, for reports received from another server. */
  uri: text("uri"),
  actionTakenAt: ts("action_taken_at"),
  actionTakenByAccountId: id("action_taken_by_account_id").references(() => accounts.id, {
    onDelete: "set null",
  }),
  assignedAccountId: id("assigned_account_id").references(() => accounts.id, {
    onDelete: "set null",
  }),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [
  index("reports_target_account_idx").on(t.targetAccountId, t.id),
  index("reports_account_idx").on(t.accountId),
  // A replayed Flag names the same target again: one report per activity and target.
  uniqueIndex("reports_uri_target_idx").on(t.uri, t.targetAccountId),
  // The dashboard's resolved_reports counts resolutions by day.
  index("reports_action_taken_at_idx").on(t.actionTakenAt).where(
    sql`${t.actionTakenAt} IS NOT NULL`,
  ),
]);

/**
 * The audit log (Mastodon's Admin::ActionLog): one row per staff action,
 * whether taken through the admin API, the admin pages or the admin command
 * line (then `accountId` is null: the operator of the machine).
 */
export const adminActionLogs = pgTable("admin_action_logs", {
  id: id("id").primaryKey(),
  /** The staff member who acted; null for the command line or a deleted account. */
  accountId: id("account_id").references(() => accounts.id, { onDelete: "set null" }),
  /** What was done: suspend, resolve, create, destroy, … (Mastodon's action names). */
  action: text("action").notNull(),
  /** What it was done to: Account, Report, DomainBlock, … (Mastodon's type names). */
  targetType: text("target_type").notNull(),
  targetId: text("target_id"),
  /** A readable name of the target as it was then (a handle, a domain). */
  humanIdentifier: text("human_identifier"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  index("admin_action_logs_account_idx").on(t.accountId, t.id),
  index("admin_action_logs_target_idx").on(t.targetType, t.targetId),
]);

/**
 * A moderator's warning or strike against an account (Mastodon's
 * AccountWarning): written by the admin `action` command when it carries a
 * text or a report, and shown to the account in the e-mail sent with it.
 */
export const accountWarnings = pgTable("account_warnings", {
  id: id("id").primaryKey(),
  /** The staff member who acted; null for the command line or a deleted account. */
  accountId: id("account_id").references(() => accounts.id, { onDelete: "set null" }),
  targetAccountId: id("target_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  /** none, disable, sensitive, silence or suspend. */
  action: text("action").notNull(),
  text: text("text").notNull().default(""),
  reportId: id("report_id").references(() => reports.id, { onDelete: "set null" }),
  /** Statuses the warning is about (ids, as strings). */
  statusIds: jsonb("status_ids").$type<string[]>().notNull().default([]),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [index("account_warnings_target_account_idx").on(t.targetAccountId, t.id)]);
