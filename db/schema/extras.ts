/**
 * Custom emoji and the notification policy (with its requests).
 *
 * Emoji that a status or profile uses are linked when it is written, so a
 * page's emoji come from one join instead of re-scanning every text.
 */
import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";
import { statuses } from "./statuses.ts";

/** Custom emoji: local ones uploaded by an admin, remote ones learnt from Emoji tags. */
export const customEmojis = pgTable("custom_emojis", {
  id: id("id").primaryKey(),
  shortcode: text("shortcode").notNull(),
  /** Null for local emoji; the remote server's host otherwise. */
  domain: text("domain"),
  /** ActivityPub id of a remote Emoji object (our own URL for local ones). */
  uri: text("uri"),
  /** Store key of the image: a local emoji's, or (cache/…) our copy of a remote one. */
  filePath: text("file_path"),
  /** Store key of the still (first frame) PNG. */
  staticPath: text("static_path"),
  contentType: text("content_type"),
  /** Where a remote emoji's image lives. */
  remoteUrl: text("remote_url"),
  imageFileSize: integer("image_file_size"),
  /** When a remote emoji's image was copied into the store. */
  cachedAt: ts("cached_at"),
  /** When copying it last failed. */
  cacheFailedAt: ts("cache_failed_at"),
  category: text("category"),
  visibleInPicker: boolean("visible_in_picker").notNull().default(true),
  disabled: boolean("disabled").notNull().default(false),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("custom_emojis_shortcode_domain_idx").on(
    t.shortcode,
    sql`coalesce(${t.domain}, '')`,
  ),
]);

/** Emoji used by a status (its text, spoiler or poll options). */
export const statusCustomEmojis = pgTable("statuses_custom_emojis", {
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  customEmojiId: id("custom_emoji_id").notNull().references(() => customEmojis.id, {
    onDelete: "cascade",
  }),
}, (t) => [primaryKey({ columns: [t.statusId, t.customEmojiId] })]);

/** Emoji used by an account's display name, note or fields. */
export const accountCustomEmojis = pgTable("accounts_custom_emojis", {
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  customEmojiId: id("custom_emoji_id").notNull().references(() => customEmojis.id, {
    onDelete: "cascade",
  }),
}, (t) => [primaryKey({ columns: [t.accountId, t.customEmojiId] })]);

/**
 * An account's notification policy. Each value is accept, filter or drop,
 * as Mastodon's v2 policy has it. No row means accept everything.
 */
export const notificationPolicies = pgTable("notification_policies", {
  accountId: id("account_id").primaryKey().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  forNotFollowing: text("for_not_following").notNull().default("accept"),
  forNotFollowers: text("for_not_followers").notNull().default("accept"),
  forNewAccounts: text("for_new_accounts").notNull().default("accept"),
  forPrivateMentions: text("for_private_mentions").notNull().default("filter"),
  forLimitedAccounts: text("for_limited_accounts").notNull().default("filter"),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/** Filtered notifications from one sender, held for the recipient to accept or dismiss. */
export const notificationRequests = pgTable("notification_requests", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  fromAccountId: id("from_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  lastStatusId: id("last_status_id").references(() => statuses.id, { onDelete: "set null" }),
  notificationsCount: integer("notifications_count").notNull().default(0),
  dismissed: boolean("dismissed").notNull().default(false),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("notification_requests_pair_idx").on(t.accountId, t.fromAccountId),
  index("notification_requests_account_idx").on(t.accountId, t.id),
]);

/** Senders a recipient accepted: their notifications are never filtered again. */
export const notificationPermissions = pgTable("notification_permissions", {
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  fromAccountId: id("from_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.accountId, t.fromAccountId] })]);
