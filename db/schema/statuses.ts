/**
 * Posting and reading: statuses and everything hanging off them (mentions,
 * tags, media, polls, favourites, bookmarks, pins, quotes, edits), timelines
 * filled on write, lists, markers, conversations, notifications, scheduled
 * statuses and idempotency keys.
 *
 * Counters that every page shows (replies, reblogs, favourites, quotes) live
 * on the status row, so hydrating a page needs no aggregate query.
 */
import { sql } from "drizzle-orm";
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { id, ts, tsvector } from "./columns.ts";
import { accounts, oauthApplications, tags, users } from "./core.ts";
import { accountWarnings, reports } from "./moderation.ts";
import { collections } from "./collections.ts";
import type { StoredPolicy } from "../../model/interaction_policy.ts";

/** Statuses, local and remote; a boost is a status with reblog_of_id set. */
export const statuses = pgTable("statuses", {
  id: id("id").primaryKey(),
  /** ActivityPub object IRI (for a boost: the Announce's IRI). */
  uri: text("uri").notNull().unique(),
  /** Human-facing URL. */
  url: text("url"),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  local: boolean("local").notNull().default(false),
  /** public, unlisted, private or direct. */
  visibility: text("visibility").notNull().default("public"),
  /** Sanitized HTML. */
  content: text("content").notNull().default(""),
  /** The plain source text of a local status (for edit and redraft). */
  text: text("text"),
  spoilerText: text("spoiler_text").notNull().default(""),
  sensitive: boolean("sensitive").notNull().default(false),
  language: text("language"),
  inReplyToId: id("in_reply_to_id"),
  inReplyToAccountId: id("in_reply_to_account_id"),
  /** The IRI replied to, kept even when we do not have that status. */
  inReplyToUri: text("in_reply_to_uri"),
  reblogOfId: id("reblog_of_id"),
  /** The thread this status belongs to (conversations, muting a thread). */
  conversationId: id("conversation_id"),
  applicationId: id("application_id").references(() => oauthApplications.id, {
    onDelete: "set null",
  }),
  pollId: id("poll_id"),
  /** The quoted status, when this status quotes one. */
  quotedStatusId: id("quoted_status_id"),
  /** Who may quote this status: public, followers or nobody. */
  quoteApprovalPolicy: text("quote_approval_policy").notNull().default("public"),
  /**
   * Who may favourite, reply, boost and quote (model/interaction_policy.ts),
   * normalised. Local: NULL = the built-in defaults for the visibility.
   * Remote: what the Note said; NULL or an absent sub-policy = its server is
   * unaware of policies for that interaction.
   */
  interactionPolicy: jsonb("interaction_policy").$type<StoredPolicy>(),
  /** This reply or boost waits for the target author's approval (hidden from others). */
  pendingApproval: boolean("pending_approval").notNull().default(false),
  /** The authorization IRI proving this reply or boost was approved. */
  approvedByUri: text("approved_by_uri"),
  repliesCount: integer("replies_count").notNull().default(0),
  reblogsCount: integer("reblogs_count").notNull().default(0),
  favouritesCount: integer("favourites_count").notNull().default(0),
  quotesCount: integer("quotes_count").notNull().default(0),
  /** A remote post's `Link` attachment (FEP-8967): the link its preview card shows. */
  cardLink: text("card_link"),
  createdAt: ts("created_at").notNull().defaultNow(),
  editedAt: ts("edited_at"),
  deletedAt: ts("deleted_at"),
}, (t) => [
  index("statuses_account_idx").on(t.accountId, t.id),
  index("statuses_local_created_idx").on(t.local, t.createdAt),
  index("statuses_public_idx").on(t.id).where(
    sql`${t.visibility} = 'public' AND ${t.deletedAt} IS NULL AND ${t.reblogOfId} IS NULL`,
  ),
  index("statuses_reply_idx").on(t.inReplyToId),
  index("statuses_reblog_idx").on(t.reblogOfId, t.accountId),
  index("statuses_conversation_idx").on(t.conversationId),
  index("statuses_quoted_idx").on(t.quotedStatusId),
]);

/**
 * The full-text index of statuses (db/queries/status_search.ts): one row per
 * status that is neither deleted nor a boost, kept in step by triggers on
 * `statuses` (migration 0012), never written by the application. `public`
 * copies the status's visibility (it never changes) so that the public part
 * of a search needs no join to rule out the rest.
 */
export const statusSearch = pgTable("status_search", {
  statusId: id("status_id").primaryKey().references(() => statuses.id, { onDelete: "cascade" }),
  accountId: id("account_id").notNull(),
  public: boolean("public").notNull(),
  /** The status's text and content warning, in the 'simple' configuration. */
  document: tsvector("document").notNull(),
}, (t) => [
  index("status_search_document_idx").using("gin", t.document),
  index("status_search_account_idx").on(t.accountId, t.statusId),
]);

/** Earlier versions of edited statuses (the first edit stores the original too). */
export const statusEdits = pgTable("status_edits", {
  id: id("id").primaryKey(),
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  text: text("text"),
  content: text("content").notNull(),
  spoilerText: text("spoiler_text").notNull().default(""),
  sensitive: boolean("sensitive").notNull().default(false),
  mediaAttachmentIds: jsonb("media_attachment_ids").$type<string[]>().notNull().default(
    sql`'[]'::jsonb`,
  ),
  /** Poll option titles at that version, when there was a poll. */
  pollOptions: jsonb("poll_options").$type<string[] | null>(),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  index("status_edits_status_idx").on(t.statusId, t.id),
  index("status_edits_account_idx").on(t.accountId),
]);

/** Accounts mentioned by a status (silent: addressed without a visible mention). */
export const mentions = pgTable("mentions", {
  id: id("id").primaryKey(),
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  silent: boolean("silent").notNull().default(false),
}, (t) => [
  uniqueIndex("mentions_pair_idx").on(t.statusId, t.accountId),
  index("mentions_account_idx").on(t.accountId, t.statusId),
]);

export const statusTags = pgTable("statuses_tags", {
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  tagId: id("tag_id").notNull().references(() => tags.id, { onDelete: "cascade" }),
}, (t) => [
  primaryKey({ columns: [t.statusId, t.tagId] }),
  index("statuses_tags_tag_idx").on(t.tagId, t.statusId),
]);

/** Uploaded or remote media; attached when status_id is set. */
export const mediaAttachments = pgTable("media_attachments", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  statusId: id("status_id").references(() => statuses.id, { onDelete: "set null" }),
  scheduledStatusId: id("scheduled_status_id"),
  /** image, gifv, video, audio or unknown. */
  type: text("type").notNull().default("image"),
  /** Store key of the original: an upload, or (cache/…) our copy of a remote file. */
  filePath: text("file_path"),
  /** Store key of the preview image. */
  previewPath: text("preview_path"),
  contentType: text("content_type"),
  fileSize: integer("file_size"),
  /** Where a remote attachment lives on its server. */
  remoteUrl: text("remote_url"),
  /** processing, processed or failed. */
  state: text("state").notNull().default("processed"),
  meta: jsonb("meta").$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
  description: text("description"),
  blurhash: text("blurhash"),
  createdAt: ts("created_at").notNull().defaultNow(),
  /**
   * When a deleted status let go of it (delete and redraft): the cleanup of
   * unattached uploads counts the day from here rather than from the upload.
   */
  detachedAt: ts("detached_at"),
  /** When a remote attachment's files were copied into the store (pruned after a while). */
  cachedAt: ts("cached_at"),
  /** When copying a remote attachment last failed. */
  cacheFailedAt: ts("cache_failed_at"),
  previewFileSize: integer("preview_file_size"),
}, (t) => [
  index("media_attachments_status_idx").on(t.statusId),
  index("media_attachments_cached_idx").on(t.cachedAt).where(sql`${t.cachedAt} IS NOT NULL`),
  // The hourly cleanup of unattached uploads reads only these.
  index("media_attachments_unattached_idx").on(t.id)
    .where(sql`${t.statusId} IS NULL AND ${t.scheduledStatusId} IS NULL`),
  index("media_attachments_account_idx").on(t.accountId, t.id),
  // The worker looks for unfinished uploads; they are few, so a partial index.
  index("media_attachments_processing_idx").on(t.id).where(sql`${t.state} = 'processing'`),
]);

export const polls = pgTable("polls", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  statusId: id("status_id").references(() => statuses.id, { onDelete: "cascade" }),
  /** The Question's IRI for remote polls. */
  uri: text("uri"),
  options: jsonb("options").$type<string[]>().notNull(),
  /** Votes per option, same order as options. */
  tallies: jsonb("tallies").$type<number[]>().notNull(),
  multiple: boolean("multiple").notNull().default(false),
  hideTotals: boolean("hide_totals").notNull().default(false),
  votesCount: integer("votes_count").notNull().default(0),
  votersCount: integer("voters_count").notNull().default(0),
  expiresAt: ts("expires_at"),
  /** Set once the end was processed (notifications sent, final Update delivered). */
  closedAt: ts("closed_at"),
  lastFetchedAt: ts("last_fetched_at"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  index("polls_status_idx").on(t.statusId),
  index("polls_open_idx").on(t.expiresAt).where(sql`${t.closedAt} IS NULL`),
]);

export const pollVotes = pgTable("poll_votes", {
  id: id("id").primaryKey(),
  pollId: id("poll_id").notNull().references(() => polls.id, { onDelete: "cascade" }),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  choice: integer("choice").notNull(),
  uri: text("uri"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("poll_votes_choice_idx").on(t.pollId, t.accountId, t.choice),
]);

export const favourites = pgTable("favourites", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  /** The Like activity's IRI. */
  uri: text("uri"),
  /** The Like waits for the status author's approval; not counted meanwhile. */
  pendingApproval: boolean("pending_approval").notNull().default(false),
  /** The LikeAuthorization IRI once approved. */
  approvedByUri: text("approved_by_uri"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("favourites_pair_idx").on(t.accountId, t.statusId),
  index("favourites_status_idx").on(t.statusId, t.id),
  index("favourites_account_idx").on(t.accountId, t.id),
]);

export const bookmarks = pgTable("bookmarks", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("bookmarks_pair_idx").on(t.accountId, t.statusId),
  index("bookmarks_account_idx").on(t.accountId, t.id),
]);

export const statusPins = pgTable("status_pins", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [uniqueIndex("status_pins_pair_idx").on(t.accountId, t.statusId)]);

/** Quote posts (Mastodon 4.5, FEP-044f) and the state of their approval. */
export const quotes = pgTable("quotes", {
  id: id("id").primaryKey(),
  /** The quoting status. */
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  quotedStatusId: id("quoted_status_id").references(() => statuses.id, { onDelete: "set null" }),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  quotedAccountId: id("quoted_account_id").references(() => accounts.id, {
    onDelete: "set null",
  }),
  /** pending, accepted, rejected, revoked, deleted, unauthorized… */
  state: text("state").notNull().default("pending"),
  /** The QuoteRequest activity's IRI. */
  activityUri: text("activity_uri"),
  /** The QuoteAuthorization stamp's IRI, once approved. */
  approvalUri: text("approval_uri"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("quotes_status_idx").on(t.statusId),
  index("quotes_quoted_idx").on(t.quotedStatusId, t.id),
]);

/** Threads: local ones are ours; remote ones remember their `context` IRI. */
export const conversations = pgTable("conversations", {
  id: id("id").primaryKey(),
  uri: text("uri").unique(),
  createdAt: ts("created_at").notNull().defaultNow(),
});

/** Threads an account muted (no notifications from them). */
export const conversationMutes = pgTable("conversation_mutes", {
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  conversationId: id("conversation_id").notNull().references(() => conversations.id, {
    onDelete: "cascade",
  }),
}, (t) => [primaryKey({ columns: [t.accountId, t.conversationId] })]);

/** Direct-message conversations as one participant sees them. */
export const accountConversations = pgTable("account_conversations", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  conversationId: id("conversation_id").notNull().references(() => conversations.id, {
    onDelete: "cascade",
  }),
  /** The other participants, sorted. */
  participantAccountIds: jsonb("participant_account_ids").$type<string[]>().notNull(),
  lastStatusId: id("last_status_id"),
  unread: boolean("unread").notNull().default(false),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("account_conversations_key_idx").on(
    t.accountId,
    t.conversationId,
    t.participantAccountIds,
  ),
  index("account_conversations_last_idx").on(t.accountId, t.lastStatusId),
]);

/**
 * Home timelines, filled on write and trimmed to a bounded length.
 *
 * A derived, rebuildable index (Mastodon keeps it in Redis), so it has no
 * foreign keys: checking two of them for each of a post's hundreds of rows
 * was about 15% of posting's cost. Readers join `statuses`, so an entry whose
 * status is gone shows nothing; removeFromFeeds deletes a status's entries
 * when it is deleted or unboosted, and accounts are never hard-deleted.
 */
export const homeFeed = pgTable("home_feed", {
  accountId: id("account_id").notNull(),
  /** The status shown: an original or a boost. */
  statusId: id("status_id").notNull(),
  /** For boosts, the boosted status, so one post shows once. */
  reblogOfId: id("reblog_of_id"),
}, (t) => [
  primaryKey({ columns: [t.accountId, t.statusId] }),
  // Boost de-duplication looks up by reblog_of_id only; originals (most rows)
  // stay out of this index, so fanning one out updates one index, not two.
  // There is no index by status alone: every delete names the feeds' owners
  // (actors/timelines/fanout.ts), and one more index to update for each of
  // a post's hundred feed rows cost a tenth of the fan-out.
  index("home_feed_reblog_idx").on(t.accountId, t.reblogOfId).where(
    sql`${t.reblogOfId} IS NOT NULL`,
  ),
]);

/**
 * A large fan-out's home rows, promised (actors/timelines/pending_home.ts):
 * who receives the status, stored by the posting transaction; a second
 * transaction writes the home_feed rows and deletes this one. The home page
 * reads the viewer's rows here too. A few rows at any time.
 */
export const pendingHome = pgTable("pending_home", {
  statusId: id("status_id").primaryKey(),
  reblogOfId: id("reblog_of_id"),
  /** The local accounts whose home feed receives it (fan-out's rules applied). */
  receivers: id("receivers").array().notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
});

export const lists = pgTable("lists", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  title: text("title").notNull(),
  /** followed, list or none. */
  repliesPolicy: text("replies_policy").notNull().default("list"),
  /** Members' posts stay out of the home timeline. */
  exclusive: boolean("exclusive").notNull().default(false),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [index("lists_account_idx").on(t.accountId)]);

export const listAccounts = pgTable("list_accounts", {
  id: id("id").primaryKey(),
  listId: id("list_id").notNull().references(() => lists.id, { onDelete: "cascade" }),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
}, (t) => [
  uniqueIndex("list_accounts_pair_idx").on(t.listId, t.accountId),
  index("list_accounts_account_idx").on(t.accountId),
]);

/** List timelines, filled on write like the home timeline. */
export const listFeed = pgTable("list_feed", {
  listId: id("list_id").notNull().references(() => lists.id, { onDelete: "cascade" }),
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
}, (t) => [primaryKey({ columns: [t.listId, t.statusId] })]);

export const tagFollows = pgTable("tag_follows", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  tagId: id("tag_id").notNull().references(() => tags.id, { onDelete: "cascade" }),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("tag_follows_pair_idx").on(t.accountId, t.tagId),
  index("tag_follows_tag_idx").on(t.tagId),
]);

/** Read positions of the home and notifications timelines. */
export const markers = pgTable("markers", {
  userId: id("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  timeline: text("timeline").notNull(),
  lastReadId: text("last_read_id").notNull(),
  version: integer("version").notNull().default(0),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.userId, t.timeline] })]);

export const notifications = pgTable("notifications", {
  id: id("id").primaryKey(),
  /** Who receives it. */
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  /** Who caused it. */
  fromAccountId: id("from_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  type: text("type").notNull(),
  statusId: id("status_id").references(() => statuses.id, { onDelete: "cascade" }),
  /** Grouping key for the v2 API (e.g. favourite-<status id>-<day>), null when ungrouped. */
  groupKey: text("group_key"),
  /** Held back by the notification policy (include_filtered shows them). */
  filtered: boolean("filtered").notNull().default(false),
  createdAt: ts("created_at").notNull().defaultNow(),
  /** The report an `admin.report` notification is about. */
  reportId: id("report_id").references(() => reports.id, { onDelete: "cascade" }),
  /** The warning a `moderation_warning` notification shows. */
  accountWarningId: id("account_warning_id").references(() => accountWarnings.id, {
    onDelete: "cascade",
  }),
  /** The collection an `added_to_collection` or `collection_update` notification is about. */
  collectionId: id("collection_id").references(() => collections.id, { onDelete: "cascade" }),
}, (t) => [
  index("notifications_account_idx").on(t.accountId, t.id),
  index("notifications_group_idx").on(t.accountId, t.groupKey, t.id),
  index("notifications_status_idx").on(t.statusId),
  index("notifications_report_idx").on(t.reportId),
  index("notifications_account_warning_idx").on(t.accountWarningId),
  index("notifications_collection_idx").on(t.collectionId)
    .where(sql`${t.collectionId} IS NOT NULL`),
]);

/** Statuses waiting for their time. */
export const scheduledStatuses = pgTable("scheduled_statuses", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  scheduledAt: ts("scheduled_at").notNull(),
  /** The creation parameters, as the API returns them in `params`. */
  params: jsonb("params").$type<Record<string, unknown>>().notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  index("scheduled_statuses_due_idx").on(t.scheduledAt),
  index("scheduled_statuses_account_idx").on(t.accountId, t.id),
]);

/** Idempotency-Key of status creation, kept an hour. */
export const idempotencyKeys = pgTable("idempotency_keys", {
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  key: text("key").notNull(),
  /** What the first request produced: a status id or a scheduled status id. */
  statusId: id("status_id"),
  scheduledStatusId: id("scheduled_status_id"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.accountId, t.key] })]);

/** Link previews; statuses that link to a page share its card. */
export const previewCards = pgTable("preview_cards", {
  id: id("id").primaryKey(),
  url: text("url").notNull().unique(),
  title: text("title").notNull().default(""),
  description: text("description").notNull().default(""),
  /** link, photo, video or rich. */
  type: text("type").notNull().default("link"),
  authorName: text("author_name").notNull().default(""),
  authorUrl: text("author_url").notNull().default(""),
  providerName: text("provider_name").notNull().default(""),
  providerUrl: text("provider_url").notNull().default(""),
  html: text("html").notNull().default(""),
  width: integer("width").notNull().default(0),
  height: integer("height").notNull().default(0),
  /** The page's image. */
  imageRemoteUrl: text("image_remote_url"),
  /** Our copy of it (a store key under cache/preview_cards/). */
  imageKey: text("image_key"),
  imageFileSize: integer("image_file_size"),
  imageCachedAt: ts("image_cached_at"),
  imageFailedAt: ts("image_failed_at"),
  embedUrl: text("embed_url").notNull().default(""),
  blurhash: text("blurhash"),
  /** The page's `<meta name="fediverse:creator">` handle (`user@domain`), as written. */
  creatorHandle: text("creator_handle"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [
  index("preview_cards_cached_idx").on(t.imageCachedAt).where(sql`${t.imageKey} IS NOT NULL`),
]);

/**
 * Links whose page gave no card when last fetched (unreachable, not HTML, no
 * title). Posts with such a link within CARD_FAILURE_TTL_MS (actors/cards)
 * queue no fetch, so a dead or hostile site is not asked again for every
 * post that links it; rows past that age are pruned by the worker.
 */
export const previewCardFailures = pgTable("preview_card_failures", {
  url: text("url").primaryKey(),
  failedAt: ts("failed_at").notNull().defaultNow(),
});

export const statusPreviewCards = pgTable("statuses_preview_cards", {
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  previewCardId: id("preview_card_id").notNull().references(() => previewCards.id, {
    onDelete: "cascade",
  }),
}, (t) => [
  primaryKey({ columns: [t.statusId, t.previewCardId] }),
  index("statuses_preview_cards_card_idx").on(t.previewCardId, t.statusId),
]);

/** Collections a status links to (its `tagged_collections`, Mastodon 4.6). */
export const statusCollections = pgTable("status_collections", {
  statusId: id("status_id").notNull().references(() => statuses.id, { onDelete: "cascade" }),
  collectionId: id("collection_id").notNull().references(() => collections.id, {
    onDelete: "cascade",
  }),
}, (t) => [
  primaryKey({ columns: [t.statusId, t.collectionId] }),
  index("status_collections_collection_idx").on(t.collectionId),
]);
