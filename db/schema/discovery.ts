/**
 * Discovery: trend scores (recomputed by the worker's trends job), the
 * moderators' reviews of trending items, and what shapes follow
 * suggestions (accounts staff feature, suggestions a user dismissed).
 *
 * Trend rows name their target by kind (a tag, a status or a preview card),
 * so they carry no foreign key: readers join the target and a vanished one
 * simply drops out until the next refresh replaces the rows.
 */
import {
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";

/** The current trends: one row per trending tag, status or link, with its decayed score. */
export const trendScores = pgTable("trend_scores", {
  /** tag, status or link. */
  kind: text("kind").notNull(),
  /** tags.id, statuses.id or preview_cards.id. */
  targetId: id("target_id").notNull(),
  score: doublePrecision("score").notNull(),
  /** Distinct accounts behind the score (tags, links) or interactions (statuses). */
  accounts: integer("accounts").notNull(),
  computedAt: ts("computed_at").notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.kind, t.targetId] }),
  index("trend_scores_rank_idx").on(t.kind, t.score),
]);

/** A moderator's decision on a trending item: allowed or rejected. */
export const trendReviews = pgTable("trend_reviews", {
  kind: text("kind").notNull(),
  targetId: id("target_id").notNull(),
  /** allowed or rejected. */
  state: text("state").notNull(),
  reviewedAt: ts("reviewed_at").notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.kind, t.targetId] })]);

/**
 * The sites trending links come from (Mastodon's PreviewCardProvider): one
 * row per domain, added by the trends refresh, so staff can approve or
 * reject a whole publisher (its review is a `trend_reviews` row of kind
 * "publisher"). The id is the first trending card's id from that domain.
 */
export const trendPublishers = pgTable("trend_publishers", {
  id: id("id").primaryKey(),
  domain: text("domain").notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [uniqueIndex("trend_publishers_domain_idx").on(t.domain)]);

/** Accounts staff feature in everyone's follow suggestions. */
export const suggestionFeatures = pgTable("suggestion_features", {
  accountId: id("account_id").primaryKey().references(() => accounts.id, { onDelete: "cascade" }),
  createdAt: ts("created_at").notNull().defaultNow(),
});

/** Suggestions a user dismissed (DELETE /api/v1/suggestions/:account_id); never shown again. */
export const suggestionDismissals = pgTable("suggestion_dismissals", {
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  targetAccountId: id("target_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.accountId, t.targetAccountId] })]);
