/**
 * The core tables: accounts, users, OAuth, follows, tags and the other
 * tables the status and extra tables refer to (db/schema/statuses.ts,
 * db/schema/extras.ts import from here; nothing here imports them).
 */
import { sql } from "drizzle-orm";
import { id, ts } from "./columns.ts";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/** One key a remote actor lists: its id, its kind, and the property that lists it. */
export interface RemoteKey {
  id: string;
  type: "rsa" | "ed25519" | "other";
  in: "publicKey" | "assertionMethod";
}

/** Every account the server knows: local ones (domain null) and remote ones. */
export const accounts = pgTable("accounts", {
  id: id("id").primaryKey(),
  username: text("username").notNull(),
  /** Null for local accounts. */
  domain: text("domain"),
  /** ActivityPub actor IRI. */
  uri: text("uri").notNull().unique(),
  /** Human-facing profile URL. */
  url: text("url"),
  /** Person, Service (bots), Group, Application (instance actors elsewhere). */
  actorType: text("actor_type").notNull().default("Person"),
  displayName: text("display_name").notNull().default(""),
  /** Profile bio as sanitized HTML. */
  note: text("note").notNull().default(""),
  /** Profile fields: [{name, value (HTML), verified_at}]. */
  fields: jsonb("fields").$type<{ name: string; value: string; verified_at: string | null }[]>()
    .notNull().default(sql`'[]'::jsonb`),
  locked: boolean("locked").notNull().default(false),
  discoverable: boolean("discoverable").notNull().default(true),
  indexable: boolean("indexable").notNull().default(true),
  hideCollections: boolean("hide_collections").notNull().default(false),
  memorial: boolean("memorial").notNull().default(false),
  attributionDomains: jsonb("attribution_domains").$type<string[]>().notNull()
    .default(sql`'[]'::jsonb`),
  /**
   * Avatar and header: keys of the media store (actors/media/store/keys.ts),
   * a local account's uploads or our cached copies of a remote account's
   * images; a remote account also keeps its server's URLs.
   */
  avatarKey: text("avatar_key"),
  avatarRemoteUrl: text("avatar_remote_url"),
  avatarFileSize: integer("avatar_file_size"),
  avatarCachedAt: ts("avatar_cached_at"),
  /** When fetching a remote avatar last failed (not tried again for a while). */
  avatarFailedAt: ts("avatar_failed_at"),
  headerKey: text("header_key"),
  headerRemoteUrl: text("header_remote_url"),
  headerFileSize: integer("header_file_size"),
  headerCachedAt: ts("header_cached_at"),
  headerFailedAt: ts("header_failed_at"),
  /** Alt text of the avatar and the header (4.7); cleared when the image changes. */
  avatarDescription: text("avatar_description").notNull().default(""),
  headerDescription: text("header_description").notNull().default(""),
  /** Whether the profile shows its media tab, replies there, and its featured tab (4.6). */
  showMedia: boolean("show_media").notNull().default(true),
  showMediaReplies: boolean("show_media_replies").notNull().default(true),
  showFeatured: boolean("show_featured").notNull().default(true),
  inboxUrl: text("inbox_url"),
  sharedInboxUrl: text("shared_inbox_url"),
  outboxUrl: text("outbox_url"),
  followersUrl: text("followers_url"),
  followingUrl: text("following_url"),
  featuredUrl: text("featured_url"),
  featuredTagsUrl: text("featured_tags_url"),
  /** A remote actor's `featuredCollections` (FEP-7aa9); null for local accounts. */
  featuredCollectionsUrl: text("featured_collections_url"),
  /**
   * A remote actor's `interactionPolicy.canFeature`, as words
   * (model/feature_policy.ts); null: it published none, so it cannot be featured.
   */
  featurePolicy: jsonb("feature_policy").$type<{ automatic: string[]; manual: string[] }>(),
  /** PEM of a remote actor's RSA key (local keys live in key_pairs). */
  publicKeyPem: text("public_key_pem"),
  publicKeyId: text("public_key_id"),
  /** Every key a remote actor lists; any of them verifies its signatures. */
  publicKeys: jsonb("public_keys").$type<RemoteKey[]>().notNull().default(sql`'[]'::jsonb`),
  followersCount: integer("followers_count").notNull().default(0),
  followingCount: integer("following_count").notNull().default(0),
  statusesCount: integer("statuses_count").notNull().default(0),
  lastStatusAt: ts("last_status_at"),
  movedToAccountId: id("moved_to_account_id"),
  /**
   * Actor IRIs this account says it also is (`alsoKnownAs`): for a local
   * account the aliases its owner listed, so those accounts may move here;
   * for a remote one what its actor document lists (actors/accounts/moves.ts).
   */
  alsoKnownAs: jsonb("also_known_as").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  suspendedAt: ts("suspended_at"),
  /** Who suspended it: "local" (our moderators; purged after the grace period) or "remote". */
  suspensionOrigin: text("suspension_origin"),
  /** Limited by a moderator: out of public timelines and search for non-followers. */
  silencedAt: ts("silenced_at"),
  /** Its media are always shown as sensitive. */
  sensitizedAt: ts("sensitized_at"),
  /** Set when the account was deleted: the row stays as a tombstone (410, name kept). */
  deletedAt: ts("deleted_at"),
  /** When a remote account was last fetched. */
  fetchedAt: ts("fetched_at"),
  /**
   * When the handle of a remote account was last checked with WebFinger
   * (federation/remote/handles.ts); null when never. Checked again after a day.
   */
  lastWebfingeredAt: ts("last_webfingered_at"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("accounts_handle_idx").on(
    sql`lower(${t.username})`,
    sql`lower(coalesce(${t.domain}, ''))`,
  ),
  index("accounts_domain_idx").on(t.domain),
  // The purge job looks for suspensions past the grace period.
  index("accounts_suspended_at_idx").on(t.suspendedAt).where(sql`${t.suspendedAt} IS NOT NULL`),
  // Pruning cached profile images reads remote accounts that have one.
  index("accounts_cached_profile_idx").on(t.id).where(
    sql`${t.domain} IS NOT NULL AND (${t.avatarKey} IS NOT NULL OR ${t.headerKey} IS NOT NULL)`,
  ),
]);

/** Sign-in records of local accounts. */
export const users = pgTable("users", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().unique().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  email: text("email").notNull(),
  /** argon2id hash. */
  passwordHash: text("password_hash").notNull(),
  /** owner, admin, moderator or user. */
  role: text("role").notNull().default("user"),
  confirmedAt: ts("confirmed_at"),
  approved: boolean("approved").notNull().default(true),
  disabled: boolean("disabled").notNull().default(false),
  locale: text("locale").notNull().default("en"),
  /** Why the person wants to join (approval mode). */
  reason: text("reason"),
  /** Posting and reading preferences, keyed like Mastodon's preferences. */
  settings: jsonb("settings").$type<Record<string, unknown>>().notNull().default(
    sql`'{}'::jsonb`,
  ),
  lastSignInAt: ts("last_sign_in_at"),
  /** SHA-256 of the pending email-confirmation token. */
  confirmationTokenHash: text("confirmation_token_hash"),
  confirmationSentAt: ts("confirmation_sent_at"),
  /** A new address waiting for confirmation (email change). */
  unconfirmedEmail: text("unconfirmed_email"),
  /** SHA-256 of the pending password-reset token (mailed; works one hour, once). */
  resetPasswordTokenHash: text("reset_password_token_hash"),
  resetPasswordSentAt: ts("reset_password_sent_at"),
  /** The TOTP secret (base32) once two-factor sign-in is on; the server must read it back. */
  otpSecret: text("otp_secret"),
  otpRequiredForLogin: boolean("otp_required_for_login").notNull().default(false),
  /** SHA-256 of each unused recovery code. */
  otpBackupCodes: jsonb("otp_backup_codes").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  /** The last TOTP time step accepted, so a code cannot be used twice. */
  otpLastStep: bigint("otp_last_step", { mode: "number" }),
  /** Date of birth given at registration when a minimum age is set (YYYY-MM-DD). */
  dateOfBirth: text("date_of_birth"),
  /**
   * The application signed up through (the API); null for the web sign-up page
   * and the command line. The only app that may resend the confirmation
   * (api/routes/email_confirmations.ts); migration 0038 filled older rows.
   */
  createdByApplicationId: id("created_by_application_id").references(
    () => oauthApplications.id,
    { onDelete: "set null" },
  ),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [uniqueIndex("users_email_idx").on(sql`lower(${t.email})`)]);

/**
 * Key pairs of local actors (owner: an account id or 'instance'), and the
 * Web Push VAPID key (owner 'vapid', actors/push/vapid.ts).
 */
export const keyPairs = pgTable("key_pairs", {
  owner: text("owner").notNull(),
  /** 'RSASSA-PKCS1-v1_5' or 'Ed25519'. */
  algorithm: text("algorithm").notNull(),
  privateKey: jsonb("private_key").$type<JsonWebKey>().notNull(),
  publicKey: jsonb("public_key").$type<JsonWebKey>().notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.owner, t.algorithm] })]);

/** OAuth client applications. */
export const oauthApplications = pgTable("oauth_applications", {
  id: id("id").primaryKey(),
  name: text("name").notNull(),
  website: text("website"),
  redirectUris: jsonb("redirect_uris").$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  scopes: jsonb("scopes").$type<string[]>().notNull().default(sql`'["read"]'::jsonb`),
  clientId: text("client_id").notNull().unique(),
  /** SHA-256 of the client secret, hex. */
  clientSecretHash: text("client_secret_hash").notNull(),
  /** The user that registered the app, when created by one. */
  ownerUserId: id("owner_user_id"),
  /** The built-in "Web" application (migration 0054): its tokens are browser sessions'. */
  superapp: boolean("superapp").notNull().default(false),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("oauth_applications_superapp_idx").on(t.superapp).where(sql`${t.superapp}`),
]);

/** Access tokens; only their SHA-256 is stored. */
export const oauthAccessTokens = pgTable("oauth_access_tokens", {
  id: id("id").primaryKey(),
  tokenHash: text("token_hash").notNull().unique(),
  applicationId: id("application_id").references(() => oauthApplications.id, {
    onDelete: "cascade",
  }),
  /** Null for app (client credentials) tokens. */
  userId: id("user_id").references(() => users.id, { onDelete: "cascade" }),
  scopes: jsonb("scopes").$type<string[]>().notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
  lastUsedAt: ts("last_used_at"),
  revokedAt: ts("revoked_at"),
  /**
   * The browser session a web token belongs to (actors/auth/web_tokens.ts):
   * accepted on the streaming API only, ended with its session.
   */
  webSessionId: id("web_session_id").references((): AnyPgColumn => webSessions.id, {
    onDelete: "cascade",
  }),
}, (t) => [
  index("oauth_access_tokens_user_idx").on(t.userId),
  uniqueIndex("oauth_access_tokens_web_session_idx").on(t.webSessionId)
    .where(sql`${t.webSessionId} IS NOT NULL AND ${t.revokedAt} IS NULL`),
]);

/** Accepted follows (pending requests live elsewhere). */
export const follows = pgTable("follows", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  targetAccountId: id("target_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  /** The Follow activity's IRI. */
  uri: text("uri"),
  showReblogs: boolean("show_reblogs").notNull().default(true),
  notify: boolean("notify").notNull().default(false),
  languages: jsonb("languages").$type<string[] | null>(),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("follows_pair_idx").on(t.accountId, t.targetAccountId),
  index("follows_target_idx").on(t.targetAccountId, t.id),
  index("follows_account_idx").on(t.accountId, t.id),
]);

/** Which weeks each user was active, for /api/v1/instance/activity logins. */
export const loginActivity = pgTable(
  "login_activity",
  {
    userId: id("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    /** Monday 00:00 UTC of the week. */
    week: timestamp("week", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.week] }), index("login_activity_week_idx").on(t.week)],
);

/**
 * The days (UTC) each user used the API or the web pages, for the
 * `active_users` measure; written at most once per user and day.
 */
export const userActivityDays = pgTable(
  "user_activity_days",
  {
    userId: id("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
  },
  (
    t,
  ) => [primaryKey({ columns: [t.userId, t.day] }), index("user_activity_days_day_idx").on(t.day)],
);

/** Server rules shown in the instance API and at sign-up. */
export const instanceRules = pgTable("instance_rules", {
  id: id("id").primaryKey(),
  text: text("text").notNull(),
  hint: text("hint").notNull().default(""),
  position: integer("position").notNull().default(0),
  createdAt: ts("created_at").notNull().defaultNow(),
});

/** Fixed-window request counters shared by every process. */
export const rateLimitCounters = pgTable("rate_limit_counters", {
  key: text("key").primaryKey(),
  count: integer("count").notNull(),
  resetAt: ts("reset_at").notNull(),
}, (t) => [index("rate_limit_counters_reset_idx").on(t.resetAt)]);

/** Fedify's key–value store on PGlite (PostgreSQL uses @fedify/postgres). */
export const federationKv = pgTable("federation_kv", {
  key: text("key").primaryKey(),
  value: jsonb("value"),
  expiresAt: ts("expires_at"),
});

/** Fedify's message queue (federation/stores/sql_queue.ts): durable, leased, retried after a crash. */
export const federationQueue = pgTable("federation_queue", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  message: jsonb("message").notNull(),
  orderingKey: text("ordering_key"),
  runAt: ts("run_at").notNull().defaultNow(),
  /** Set while a worker holds the message; past it, another may take it. */
  lockedUntil: ts("locked_until"),
  createdAt: ts("created_at").notNull().defaultNow(),
  /** The oldest message of its ordering key (or one without): the only kind a worker claims. */
  ready: boolean("ready").notNull().default(false),
  /** A delivery's inbox host; null for other messages (federation/stores/delivery_lane.ts). */
  host: text("host"),
  /** Claims that took it over from a worker that never finished it (sql_queue.ts). */
  takeovers: integer("takeovers").notNull().default(0),
}, (t) => [
  index("federation_queue_ready_idx").on(t.runAt, t.id).where(sql`${t.ready}`),
  // Whether an older message of the same key is still queued (sql_queue.ts).
  index("federation_queue_ordering_idx").on(t.orderingKey, t.id)
    .where(sql`${t.orderingKey} IS NOT NULL`),
  // One ready message per key: the database keeps a key's messages one at a time.
  uniqueIndex("federation_queue_head_idx").on(t.orderingKey)
    .where(sql`${t.ready} AND ${t.orderingKey} IS NOT NULL`),
  // Deliveries claimed on their own slots; other messages never enter it.
  index("federation_queue_delivery_idx").on(t.runAt, t.id)
    .where(sql`${t.ready} AND ${t.host} IS NOT NULL`),
]);

/**
 * Deliveries a command promised, written in the same transaction as the
 * change they announce (the transactional outbox). A relay
 * (federation/outbox/relay.ts) hands each to the federation outbox, which
 * queues the activity on federation_queue, and then deletes it; what a
 * crash or a failed enqueue leaves behind is retried with backoff.
 */
export const outboxIntents = pgTable("outbox_intents", {
  id: id("id").primaryKey(),
  /** The Outbox method to call (actors/outbox/mod.ts). */
  method: text("method").notNull(),
  /** Its arguments, as the command recorded them. */
  args: jsonb("args").notNull(),
  /** Failed relays so far (decides the backoff). */
  attempts: integer("attempts").notNull().default(0),
  /** Not relayed before this time (backoff after a failure). */
  nextAttemptAt: ts("next_attempt_at").notNull().defaultNow(),
  /** Set while a relay holds the intent; past it, another may take it. */
  lockedUntil: ts("locked_until"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [index("outbox_intents_next_attempt_idx").on(t.nextAttemptAt)]);

/** Hands each starting process a distinct tag for its snowflake ids. */
export const processTags = pgSequence("process_tags", { startWith: 0, minValue: 0 });

/** One-time OAuth authorization codes (stored hashed; single use; short-lived). */
export const oauthAuthorizationCodes = pgTable("oauth_authorization_codes", {
  id: id("id").primaryKey(),
  codeHash: text("code_hash").notNull().unique(),
  applicationId: id("application_id").notNull().references(() => oauthApplications.id, {
    onDelete: "cascade",
  }),
  userId: id("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  redirectUri: text("redirect_uri").notNull(),
  scopes: jsonb("scopes").$type<string[]>().notNull(),
  /** PKCE S256 challenge, when the client sent one. */
  codeChallenge: text("code_challenge"),
  expiresAt: ts("expires_at").notNull(),
  usedAt: ts("used_at"),
  /**
   * The token this code was exchanged for: presenting the code again revokes
   * it (RFC 6749 4.1.2), since a second use means the code leaked.
   */
  accessTokenId: id("access_token_id").references(() => oauthAccessTokens.id, {
    onDelete: "set null",
  }),
  createdAt: ts("created_at").notNull().defaultNow(),
});

/** Browser sign-in sessions for the OAuth pages (cookie holds the secret; we keep its hash). */
export const webSessions = pgTable("web_sessions", {
  id: id("id").primaryKey(),
  tokenHash: text("token_hash").notNull().unique(),
  userId: id("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  /** Random per-session value that forms on the OAuth pages must echo. */
  csrfToken: text("csrf_token").notNull(),
  userAgent: text("user_agent"),
  ip: text("ip"),
  createdAt: ts("created_at").notNull().defaultNow(),
  lastSeenAt: ts("last_seen_at").notNull().defaultNow(),
  /** A TOTP secret shown on the enable page, waiting for its first code. */
  pendingOtpSecret: text("pending_otp_secret"),
  /** When this session last confirmed its password for a sensitive page (Mastodon's challenge). */
  challengePassedAt: ts("challenge_passed_at"),
  /** The user's role requires two-factor sign-in and it is not set up: every page leads there. */
  twoFactorSetupRequired: boolean("two_factor_setup_required").notNull().default(false),
});

/**
 * A sign-in that passed the password and waits for the second factor: bound
 * to the browser by a cookie whose SHA-256 is kept here; short-lived, and
 * given up after a few wrong codes.
 */
export const signInChallenges = pgTable("sign_in_challenges", {
  id: id("id").primaryKey(),
  tokenHash: text("token_hash").notNull().unique(),
  userId: id("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  /** Where the sign-in goes on success (a local path or the OAuth request). */
  destination: text("destination").notNull(),
  attempts: integer("attempts").notNull().default(0),
  userAgent: text("user_agent"),
  createdAt: ts("created_at").notNull().defaultNow(),
});

/** Follow requests waiting for the target's answer (locked accounts, remote follows). */
export const followRequests = pgTable("follow_requests", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  targetAccountId: id("target_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  uri: text("uri"),
  showReblogs: boolean("show_reblogs").notNull().default(true),
  notify: boolean("notify").notNull().default(false),
  languages: jsonb("languages").$type<string[] | null>(),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("follow_requests_pair_idx").on(t.accountId, t.targetAccountId),
  index("follow_requests_target_idx").on(t.targetAccountId, t.id),
]);

export const blocks = pgTable("blocks", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  targetAccountId: id("target_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  /** The Block activity's IRI. */
  uri: text("uri"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("blocks_pair_idx").on(t.accountId, t.targetAccountId),
  index("blocks_target_idx").on(t.targetAccountId),
]);

export const mutes = pgTable("mutes", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  targetAccountId: id("target_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  hideNotifications: boolean("hide_notifications").notNull().default(true),
  expiresAt: ts("expires_at"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("mutes_pair_idx").on(t.accountId, t.targetAccountId),
  // Fan-out's accounts at odds with a status (migration 0061).
  index("mutes_target_idx").on(t.targetAccountId),
]);

/** Private notes one account keeps about another. */
export const accountNotes = pgTable("account_notes", {
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  targetAccountId: id("target_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  comment: text("comment").notNull(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.accountId, t.targetAccountId] })]);

/** Accounts featured ("endorsed") on a profile. */
export const endorsements = pgTable("endorsements", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  targetAccountId: id("target_account_id").notNull().references(() => accounts.id, {
    onDelete: "cascade",
  }),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [uniqueIndex("endorsements_pair_idx").on(t.accountId, t.targetAccountId)]);

/** Domains a user has blocked for themselves. */
export const accountDomainBlocks = pgTable("account_domain_blocks", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  domain: text("domain").notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [
  uniqueIndex("account_domain_blocks_pair_idx").on(t.accountId, t.domain),
  // Fan-out's accounts at odds with a status (migration 0061).
  index("account_domain_blocks_domain_idx").on(sql`lower(${t.domain})`),
]);

/** Hashtags. Names are stored as first seen; lookups are case-insensitive. */
export const tags = pgTable("tags", {
  id: id("id").primaryKey(),
  name: text("name").notNull(),
  /** Staff's capitalization of the name (same letters, any case); null: the name. */
  displayName: text("display_name"),
  /** False: staff barred it; new statuses are not linked to it (actors/statuses/rows.ts). */
  usable: boolean("usable").notNull().default(true),
  /** False: left out of hashtag search. */
  listable: boolean("listable").notNull().default(true),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [uniqueIndex("tags_name_idx").on(sql`lower(${t.name})`)]);

/** Hashtags featured on a profile. */
export const featuredTags = pgTable("featured_tags", {
  id: id("id").primaryKey(),
  accountId: id("account_id").notNull().references(() => accounts.id, { onDelete: "cascade" }),
  tagId: id("tag_id").notNull().references(() => tags.id, { onDelete: "cascade" }),
  statusesCount: integer("statuses_count").notNull().default(0),
  lastStatusAt: ts("last_status_at"),
  createdAt: ts("created_at").notNull().defaultNow(),
}, (t) => [uniqueIndex("featured_tags_pair_idx").on(t.accountId, t.tagId)]);
