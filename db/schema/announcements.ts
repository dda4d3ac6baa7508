/**
 * Announcements: messages from the server's administrators, shown by apps
 * above the home timeline (Mastodon's Announcement), with who dismissed them
 * and the emoji reactions people left.
 */
import { boolean, index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";
import { customEmojis } from "./extras.ts";

/**
 * One announcement. `content` is `text` rendered when it was written (links,
 * mentions and hashtags, as a post); the ids and names it refers to are kept
 * beside it for the entity's `mentions`, `statuses` and `tags`.
 */
export const announcements = pgTable("announcements", {
  id: id("id").primaryKey(),
  text: text("text").notNull(),
  content: text("content").notNull(),
  startsAt: ts("starts_at"),
  endsAt: ts("ends_at"),
  allDay: boolean("all_day").notNull().default(false),
  published: boolean("published").notNull().default(false),
  publishedAt: ts("published_at"),
  mentionAccountIds: jsonb("mention_account_ids").$type<string[]>().notNull().default([]),
  statusIds: jsonb("status_ids").$type<string[]>().notNull().default([]),
  tagNames: jsonb("tag_names").$type<string[]>().notNull().default([]),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/** An account dismissed (read) an announcement. */
export const announcementMutes = pgTable("announcement_mutes", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  announcementId: id("announcement_id").notNull().references(() => announcements.id, {
    onDelete: "cascade",
  }),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("announcement_mutes_pair_idx").on(t.accountId, t.announcementId),
]);

/** A reaction: a Unicode emoji, or a local custom emoji by shortcode (then its row). */
export const announcementReactions = pgTable("announcement_reactions", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  announcementId: id("announcement_id").notNull().references(() => announcements.id, {
    onDelete: "cascade",
  }),
  name: text("name").notNull(),
  customEmojiId: id("custom_emoji_id").references(() => customEmojis.id, { onDelete: "cascade" }),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("announcement_reactions_unique_idx").on(t.accountId, t.announcementId, t.name),
  index("announcement_reactions_announcement_idx").on(t.announcementId),
]);
