/**
 * Interactions waiting for, or decided by, an author's approval (issue 34,
 * migration 0052): favourites, replies and boosts of a status whose
 * interaction policy asks for approval or proof. Both directions: inbound
 * (the target is local) and outbound (our user interacts with a remote
 * status and asked for approval). Rows are kept after the decision: an
 * accepted row serves the authorization, a rejected one refuses the same
 * interaction when it is delivered again.
 */
import { sql } from "drizzle-orm";
import { boolean, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { accounts } from "./core.ts";
import { favourites, statuses } from "./statuses.ts";

export const interactionRequests = pgTable("interaction_requests", {
  /** Snowflake; names our authorization, Accept and Reject. */
  id: id("id").primaryKey(),
  /** favourite, reply or reblog (the API's words). */
  type: text("type").notNull(),
  /** The status interacted with, and its author. */
  targetStatusId: id("target_status_id").notNull().references(() => statuses.id, {
    onDelete: "cascade",
  }),
  targetAccountId: id("target_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  /** Who interacts. */
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  /** The reply or the boost (reply, reblog); null once discarded, or never stored. */
  statusId: id("status_id").references(() => statuses.id, { onDelete: "set null" }),
  /** The favourite (favourite); null once it is gone. */
  favouriteId: id("favourite_id").references(() => favourites.id, { onDelete: "set null" }),
  /** The interaction's IRI: the reply Note, the Announce, the Like. */
  interactionUri: text("interaction_uri").notNull(),
  /** The *Request activity's IRI: theirs (inbound, polite) or ours (outbound). */
  requestUri: text("request_uri"),
  /** Arrived (or was sent) as a *Request activity: decides the form of the answer. */
  polite: boolean("polite").notNull().default(false),
  /** pending, accepted or rejected. */
  state: text("state").notNull().default("pending"),
  /** The authorization IRI once accepted (ours when the target is local). */
  authorizationUri: text("authorization_uri"),
  /** The Accept or Reject activity's IRI (ours, or the one received). */
  responseUri: text("response_uri"),
  decidedAt: ts("decided_at"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("interaction_requests_interaction_idx").on(t.interactionUri),
  uniqueIndex("interaction_requests_request_idx").on(t.requestUri)
    .where(sql`${t.requestUri} IS NOT NULL`),
  uniqueIndex("interaction_requests_authorization_idx").on(t.authorizationUri)
    .where(sql`${t.authorizationUri} IS NOT NULL`),
  // GET /api/v1/interaction_requests and the settings page.
  index("interaction_requests_pending_idx").on(t.targetAccountId, t.id)
    .where(sql`${t.state} = 'pending'`),
  index("interaction_requests_status_idx").on(t.statusId),
  index("interaction_requests_favourite_idx").on(t.favouriteId),
  index("interaction_requests_target_idx").on(t.targetStatusId),
  index("interaction_requests_account_idx").on(t.accountId),
]);
