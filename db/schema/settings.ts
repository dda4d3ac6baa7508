/**
 * Settings the staff change at run time (migration 0045): what Mastodon's
 * UserRole holds beyond Rookery's fixed permission table (model/permissions.ts),
 * one row per role, and server-wide switches by key. Both are read through
 * per-process caches that the tables' triggers invalidate.
 */
import { boolean, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { ts } from "./columns.ts";

export const roleSettings = pgTable("role_settings", {
  /** user, moderator, admin or owner (a CHECK keeps it so; the four rows are seeded). */
  role: text("role").primaryKey(),
  /** Members must set up two-factor sign-in before using the web pages. */
  requireTwoFactor: boolean("require_two_factor").notNull().default(false),
  /** How many collections a member may make. */
  collectionLimit: integer("collection_limit").notNull().default(10),
  /** Grants `manage_email_subscriptions` (Mastodon's permission bit 22). */
  emailSubscriptions: boolean("email_subscriptions").notNull().default(false),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

export const serverSettings = pgTable("server_settings", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});
