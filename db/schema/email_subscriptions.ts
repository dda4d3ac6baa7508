/**
 * E-mail subscriptions (Mastodon 4.7 newsletters, migration 0045): visitors
 * who asked to get an account's public posts by e-mail. A row is pending
 * until its address confirms (double opt-in); pending rows are purged after
 * 48 hours. `email_digests` schedules the mails: one row per account with a
 * digest due or sent, so a burst of posts makes one mail.
 */
import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";

export const emailSubscriptions = pgTable("email_subscriptions", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  /** Trimmed and lower-cased. */
  email: text("email").notNull(),
  locale: text("locale").notNull().default("en"),
  confirmedAt: ts("confirmed_at"),
  confirmationSentAt: ts("confirmation_sent_at"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("email_subscriptions_pair_idx").on(t.accountId, t.email),
  index("email_subscriptions_confirmed_idx").on(t.accountId, t.id)
    .where(sql`${t.confirmedAt} IS NOT NULL`),
  index("email_subscriptions_pending_idx").on(t.createdAt).where(sql`${t.confirmedAt} IS NULL`),
]);

export const emailDigests = pgTable("email_digests", {
  accountId: id("account_id").primaryKey().references(() => accounts.id, { onDelete: "cascade" }),
  /** A digest job is scheduled for this time; null: none. */
  dueAt: ts("due_at"),
  lastSentAt: ts("last_sent_at"),
  /** The newest status mailed. */
  lastStatusId: id("last_status_id"),
});
