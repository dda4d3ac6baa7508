/**
 * Collections (Mastodon 4.6's "starter packs", FEP-7aa9 FeaturedCollection):
 * a curated public list of accounts. Local ones are made through the API
 * (actors/collections/); remote ones are cached from their owner's
 * `featuredCollections` (federation/). Items are accounts, each with a
 * consent state: a remote member is `pending` until its server accepts the
 * FeatureRequest; `rejected` and `revoked` rows are never shown, and stay so
 * that a replayed Add does not bring the member back. `item_count` is
 * computed (pending + accepted), not stored.
 */
import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts, tags } from "./core.ts";

export const collections = pgTable("collections", {
  id: id("id").primaryKey(),
  /** The curator. */
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  local: boolean("local").notNull(),
  /** The FeaturedCollection's id; null for local ones (derived: model/collection_uris.ts). */
  uri: text("uri").unique(),
  /** A remote collection's HTML page; null for local ones (derived). */
  url: text("url"),
  name: text("name").notNull(),
  /** A local collection's description, plain text as typed. */
  description: text("description"),
  /** A remote collection's description, sanitized HTML. */
  descriptionHtml: text("description_html"),
  language: text("language"),
  sensitive: boolean("sensitive").notNull().default(false),
  /** False: left out of the owner's list for others, still reachable by id or URL. */
  discoverable: boolean("discoverable").notNull().default(true),
  tagId: id("tag_id").references(() => tags.id, { onDelete: "set null" }),
  /** A remote collection's `totalItems`, as its server announced it. */
  originalNumberOfItems: integer("original_number_of_items"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [
  index("collections_account_idx").on(t.accountId, t.createdAt.desc()),
  // tagged_collections: a status's links matched against remote collections' pages.
  index("collections_url_idx").on(t.url).where(sql`${t.url} IS NOT NULL`),
]);

/** An item's consent state. */
export type CollectionItemState = "pending" | "accepted" | "rejected" | "revoked";

export const collectionItems = pgTable("collection_items", {
  id: id("id").primaryKey(),
  collectionId: id("collection_id").notNull().references(() => collections.id, {
    onDelete: "cascade",
  }),
  /** The member; null for a remote item whose actor is not stored yet. */
  accountId: id("account_id").references(() => accounts.id, { onDelete: "cascade" }),
  state: text("state").$type<CollectionItemState>().notNull(),
  /** Order in the collection (ascending). */
  position: integer("position").notNull(),
  /** A remote item's id (local items: derived). */
  uri: text("uri").unique(),
  /** The `featuredObject` as received (remote items). */
  objectUri: text("object_uri"),
  /** The FeatureRequest's id: ours for local collections, theirs for remote ones. */
  activityUri: text("activity_uri"),
  /** The member's server's FeatureAuthorization (remote members). */
  approvalUri: text("approval_uri"),
  approvalLastVerifiedAt: ts("approval_last_verified_at"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("collection_items_member_idx").on(t.collectionId, t.accountId)
    .where(sql`${t.accountId} IS NOT NULL`),
  index("collection_items_position_idx").on(t.collectionId, t.position),
  // in_collections, and the purge of an account's items.
  index("collection_items_account_idx").on(t.accountId, t.state),
  index("collection_items_activity_idx").on(t.activityUri)
    .where(sql`${t.activityUri} IS NOT NULL`),
  index("collection_items_approval_idx").on(t.approvalUri)
    .where(sql`${t.approvalUri} IS NOT NULL`),
]);
