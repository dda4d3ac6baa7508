CREATE SEQUENCE "public"."process_tags" INCREMENT BY 1 MINVALUE 0 MAXVALUE 9223372036854775807 START WITH 0 CACHE 1;--> statement-breakpoint
CREATE TABLE "accounts" (
	"id" bigint PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"domain" text,
	"uri" text NOT NULL,
	"url" text,
	"actor_type" text DEFAULT 'Person' NOT NULL,
	"display_name" text DEFAULT '' NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"fields" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"locked" boolean DEFAULT false NOT NULL,
	"discoverable" boolean DEFAULT true NOT NULL,
	"indexable" boolean DEFAULT true NOT NULL,
	"hide_collections" boolean DEFAULT false NOT NULL,
	"memorial" boolean DEFAULT false NOT NULL,
	"attribution_domains" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"avatar_url" text,
	"header_url" text,
	"inbox_url" text,
	"shared_inbox_url" text,
	"outbox_url" text,
	"followers_url" text,
	"following_url" text,
	"featured_url" text,
	"featured_tags_url" text,
	"public_key_pem" text,
	"public_key_id" text,
	"followers_count" integer DEFAULT 0 NOT NULL,
	"following_count" integer DEFAULT 0 NOT NULL,
	"statuses_count" integer DEFAULT 0 NOT NULL,
	"last_status_at" timestamp with time zone,
	"moved_to_account_id" bigint,
	"suspended_at" timestamp with time zone,
	"deleted_at" timestamp with time zone,
	"fetched_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_uri_unique" UNIQUE("uri")
);
--> statement-breakpoint
CREATE TABLE "federation_kv" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "federation_queue" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "federation_queue_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"message" jsonb NOT NULL,
	"ordering_key" text,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "follows" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"target_account_id" bigint NOT NULL,
	"uri" text,
	"show_reblogs" boolean DEFAULT true NOT NULL,
	"notify" boolean DEFAULT false NOT NULL,
	"languages" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "instance_rules" (
	"id" bigint PRIMARY KEY NOT NULL,
	"text" text NOT NULL,
	"hint" text DEFAULT '' NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "key_pairs" (
	"owner" text NOT NULL,
	"algorithm" text NOT NULL,
	"private_key" jsonb NOT NULL,
	"public_key" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "key_pairs_owner_algorithm_pk" PRIMARY KEY("owner","algorithm")
);
--> statement-breakpoint
CREATE TABLE "login_activity" (
	"user_id" bigint NOT NULL,
	"week" timestamp with time zone NOT NULL,
	CONSTRAINT "login_activity_user_id_week_pk" PRIMARY KEY("user_id","week")
);
--> statement-breakpoint
CREATE TABLE "oauth_access_tokens" (
	"id" bigint PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"application_id" bigint,
	"user_id" bigint,
	"scopes" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "oauth_access_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "oauth_applications" (
	"id" bigint PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"website" text,
	"redirect_uris" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"scopes" jsonb DEFAULT '["read"]'::jsonb NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_hash" text NOT NULL,
	"owner_user_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oauth_applications_client_id_unique" UNIQUE("client_id")
);
--> statement-breakpoint
CREATE TABLE "rate_limit_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"count" integer NOT NULL,
	"reset_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "statuses" (
	"id" bigint PRIMARY KEY NOT NULL,
	"uri" text NOT NULL,
	"url" text,
	"account_id" bigint NOT NULL,
	"local" boolean DEFAULT false NOT NULL,
	"visibility" text DEFAULT 'public' NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "statuses_uri_unique" UNIQUE("uri")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text DEFAULT 'user' NOT NULL,
	"confirmed_at" timestamp with time zone,
	"approved" boolean DEFAULT true NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"locale" text DEFAULT 'en' NOT NULL,
	"reason" text,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"last_sign_in_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_account_id_unique" UNIQUE("account_id")
);
--> statement-breakpoint
ALTER TABLE "follows" ADD CONSTRAINT "follows_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "follows" ADD CONSTRAINT "follows_target_account_id_accounts_id_fk" FOREIGN KEY ("target_account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "login_activity" ADD CONSTRAINT "login_activity_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_access_tokens" ADD CONSTRAINT "oauth_access_tokens_application_id_oauth_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."oauth_applications"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_access_tokens" ADD CONSTRAINT "oauth_access_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statuses" ADD CONSTRAINT "statuses_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_handle_idx" ON "accounts" USING btree (lower("username"),lower(coalesce("domain", '')));--> statement-breakpoint
CREATE INDEX "accounts_domain_idx" ON "accounts" USING btree ("domain");--> statement-breakpoint
CREATE INDEX "federation_queue_run_idx" ON "federation_queue" USING btree ("run_at");--> statement-breakpoint
CREATE UNIQUE INDEX "follows_pair_idx" ON "follows" USING btree ("account_id","target_account_id");--> statement-breakpoint
CREATE INDEX "follows_target_idx" ON "follows" USING btree ("target_account_id","id");--> statement-breakpoint
CREATE INDEX "login_activity_week_idx" ON "login_activity" USING btree ("week");--> statement-breakpoint
CREATE INDEX "oauth_access_tokens_user_idx" ON "oauth_access_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "rate_limit_counters_reset_idx" ON "rate_limit_counters" USING btree ("reset_at");--> statement-breakpoint
CREATE INDEX "statuses_account_idx" ON "statuses" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "statuses_local_created_idx" ON "statuses" USING btree ("local","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_idx" ON "users" USING btree (lower("email"));