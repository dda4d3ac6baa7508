-- The web app's streaming credential (issue 35): Mastodon's built-in "Web"
-- application (its superapp) and, per browser session, one access token of
-- it that the app's script opens the streaming API with. The token is bound
-- to its session row and dies with it (sign-out, the sessions page, a
-- password change, suspension). Its value is derived from the session's
-- cookie secret and never stored; the row keeps its SHA-256 like any token.
ALTER TABLE "oauth_applications" ADD COLUMN "superapp" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_applications_superapp_idx" ON "oauth_applications" ("superapp") WHERE "superapp";--> statement-breakpoint
-- Random client id, and the hash of a secret nobody knows: no client can
-- authenticate as it (the OAuth endpoints refuse it anyway).
INSERT INTO "oauth_applications" ("id", "name", "scopes", "client_id", "client_secret_hash", "superapp")
VALUES (
  (floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint << 16),
  'Web',
  '["read:statuses","read:notifications"]'::jsonb,
  md5(random()::text || clock_timestamp()::text) || md5(random()::text),
  encode(sha256(convert_to(random()::text || clock_timestamp()::text, 'UTF8')), 'hex'),
  true
);--> statement-breakpoint
ALTER TABLE "oauth_access_tokens" ADD COLUMN "web_session_id" bigint REFERENCES "web_sessions"("id") ON DELETE CASCADE;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_access_tokens_web_session_idx" ON "oauth_access_tokens" ("web_session_id") WHERE "web_session_id" IS NOT NULL AND "revoked_at" IS NULL;
