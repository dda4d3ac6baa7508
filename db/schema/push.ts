/**
 * Web Push subscriptions (Mastodon's Web::PushSubscription): at most one per
 * access token, removed with the token (a revoked token's subscription is
 * deleted by a trigger of migration 0017, a deleted token's by the cascade).
 */
import { sql } from "drizzle-orm";
import { bigint, boolean, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.ts";
import { oauthAccessTokens, users } from "./core.ts";

export const webPushSubscriptions = pgTable("web_push_subscriptions", {
  /** A plain integer, as Mastodon's entity shows it (a snowflake would not survive JSON). */
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  accessTokenId: id("access_token_id").notNull().unique().references(() => oauthAccessTokens.id, {
    onDelete: "cascade",
  }),
  userId: id("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  /**
   * The bearer token the subscription was made with. Mastodon's payload
   * carries it (apps use it to tell which account a push is for), and only
   * the token's hash is kept in oauth_access_tokens.
   */
  accessToken: text("access_token").notNull(),
  endpoint: text("endpoint").notNull(),
  /** The user agent's P-256 public key, base64url (no padding), uncompressed. */
  keyP256dh: text("key_p256dh").notNull(),
  /** The 16-byte auth secret, base64url (no padding). */
  keyAuth: text("key_auth").notNull(),
  /** RFC 8291 aes128gcm when true, the legacy aesgcm draft otherwise. */
  standard: boolean("standard").notNull().default(false),
  /** Alert name → enabled (mention, status, reblog, follow, …). */
  alerts: jsonb("alerts").$type<Record<string, boolean>>().notNull().default(sql`'{}'::jsonb`),
  /** all, followed, follower or none. */
  policy: text("policy").notNull().default("all"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
}, (t) => [index("web_push_subscriptions_user_idx").on(t.userId)]);
