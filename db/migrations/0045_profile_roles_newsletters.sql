-- Mastodon 4.6/4.7 client API (issue 33): the profile API's new account
-- columns, per-role settings (2FA required, collection limit, newsletters),
-- server settings, e-mail subscriptions and their digests, a card's
-- fediverse:creator, and generic async refreshes (year in review).

-- Avatar and header descriptions (4.7) and the profile tabs' switches (4.6).
ALTER TABLE "accounts" ADD COLUMN "avatar_description" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "header_description" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "show_media" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "show_media_replies" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "show_featured" boolean DEFAULT true NOT NULL;--> statement-breakpoint

-- What Mastodon's UserRole keeps per role beyond Rookery's fixed permission
-- table: one row per role, read through a per-process cache that the trigger
-- below invalidates.
CREATE TABLE "role_settings" (
	"role" text PRIMARY KEY NOT NULL,
	"require_two_factor" boolean DEFAULT false NOT NULL,
	"collection_limit" integer DEFAULT 10 NOT NULL,
	"email_subscriptions" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "role_settings_role_check" CHECK ("role" IN ('user', 'moderator', 'admin', 'owner')),
	CONSTRAINT "role_settings_collection_limit_check" CHECK ("collection_limit" >= 0)
);
--> statement-breakpoint
INSERT INTO "role_settings" ("role") VALUES ('user'), ('moderator'), ('admin'), ('owner');--> statement-breakpoint
CREATE FUNCTION rookery_notify_role_settings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rookery_role_settings', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER role_settings_cache AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON role_settings
  FOR EACH STATEMENT EXECUTE FUNCTION rookery_notify_role_settings();
--> statement-breakpoint

-- Switches the admins turn on the pages (key–value; today: email_subscriptions).
CREATE TABLE "server_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint

-- A browser session whose role requires two-factor sign-in the user has not set up.
ALTER TABLE "web_sessions" ADD COLUMN "two_factor_setup_required" boolean DEFAULT false NOT NULL;--> statement-breakpoint

-- Visitors subscribed by e-mail to an account's public posts (double opt-in).
CREATE TABLE "email_subscriptions" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"email" text NOT NULL,
	"locale" text DEFAULT 'en' NOT NULL,
	"confirmed_at" timestamp with time zone,
	"confirmation_sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "email_subscriptions" ADD CONSTRAINT "email_subscriptions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "email_subscriptions_pair_idx" ON "email_subscriptions" USING btree ("account_id","email");--> statement-breakpoint
CREATE INDEX "email_subscriptions_confirmed_idx" ON "email_subscriptions" USING btree ("account_id","id") WHERE "confirmed_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "email_subscriptions_pending_idx" ON "email_subscriptions" USING btree ("created_at") WHERE "confirmed_at" IS NULL;--> statement-breakpoint

-- One row per account with a digest due or sent.
CREATE TABLE "email_digests" (
	"account_id" bigint PRIMARY KEY NOT NULL,
	"due_at" timestamp with time zone,
	"last_sent_at" timestamp with time zone,
	"last_status_id" bigint
);
--> statement-breakpoint
ALTER TABLE "email_digests" ADD CONSTRAINT "email_digests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint

-- A page's <meta name="fediverse:creator"> (the card's missing_attribution).
ALTER TABLE "preview_cards" ADD COLUMN "creator_handle" text;--> statement-breakpoint

-- Background refreshes announced by a Mastodon-Async-Refresh header (year in review).
CREATE TABLE "async_refreshes" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"state" text DEFAULT 'running' NOT NULL,
	"result_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "async_refreshes_running_idx" ON "async_refreshes" USING btree ("kind","subject") WHERE "state" = 'running';
