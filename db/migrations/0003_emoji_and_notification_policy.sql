CREATE TABLE "accounts_custom_emojis" (
	"account_id" bigint NOT NULL,
	"custom_emoji_id" bigint NOT NULL,
	CONSTRAINT "accounts_custom_emojis_account_id_custom_emoji_id_pk" PRIMARY KEY("account_id","custom_emoji_id")
);
--> statement-breakpoint
CREATE TABLE "custom_emojis" (
	"id" bigint PRIMARY KEY NOT NULL,
	"shortcode" text NOT NULL,
	"domain" text,
	"uri" text,
	"file_path" text,
	"static_path" text,
	"content_type" text,
	"remote_url" text,
	"category" text,
	"visible_in_picker" boolean DEFAULT true NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_permissions" (
	"account_id" bigint NOT NULL,
	"from_account_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_permissions_account_id_from_account_id_pk" PRIMARY KEY("account_id","from_account_id")
);
--> statement-breakpoint
CREATE TABLE "notification_policies" (
	"account_id" bigint PRIMARY KEY NOT NULL,
	"for_not_following" text DEFAULT 'accept' NOT NULL,
	"for_not_followers" text DEFAULT 'accept' NOT NULL,
	"for_new_accounts" text DEFAULT 'accept' NOT NULL,
	"for_private_mentions" text DEFAULT 'filter' NOT NULL,
	"for_limited_accounts" text DEFAULT 'filter' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_requests" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"from_account_id" bigint NOT NULL,
	"last_status_id" bigint,
	"notifications_count" integer DEFAULT 0 NOT NULL,
	"dismissed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "statuses_custom_emojis" (
	"status_id" bigint NOT NULL,
	"custom_emoji_id" bigint NOT NULL,
	CONSTRAINT "statuses_custom_emojis_status_id_custom_emoji_id_pk" PRIMARY KEY("status_id","custom_emoji_id")
);
--> statement-breakpoint
ALTER TABLE "accounts_custom_emojis" ADD CONSTRAINT "accounts_custom_emojis_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "accounts_custom_emojis" ADD CONSTRAINT "accounts_custom_emojis_custom_emoji_id_custom_emojis_id_fk" FOREIGN KEY ("custom_emoji_id") REFERENCES "public"."custom_emojis"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_permissions" ADD CONSTRAINT "notification_permissions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_permissions" ADD CONSTRAINT "notification_permissions_from_account_id_accounts_id_fk" FOREIGN KEY ("from_account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_policies" ADD CONSTRAINT "notification_policies_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_requests" ADD CONSTRAINT "notification_requests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_requests" ADD CONSTRAINT "notification_requests_from_account_id_accounts_id_fk" FOREIGN KEY ("from_account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_requests" ADD CONSTRAINT "notification_requests_last_status_id_statuses_id_fk" FOREIGN KEY ("last_status_id") REFERENCES "public"."statuses"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statuses_custom_emojis" ADD CONSTRAINT "statuses_custom_emojis_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statuses_custom_emojis" ADD CONSTRAINT "statuses_custom_emojis_custom_emoji_id_custom_emojis_id_fk" FOREIGN KEY ("custom_emoji_id") REFERENCES "public"."custom_emojis"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "custom_emojis_shortcode_domain_idx" ON "custom_emojis" USING btree ("shortcode",coalesce("domain", ''));--> statement-breakpoint
CREATE UNIQUE INDEX "notification_requests_pair_idx" ON "notification_requests" USING btree ("account_id","from_account_id");--> statement-breakpoint
CREATE INDEX "notification_requests_account_idx" ON "notification_requests" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "home_feed_status_idx" ON "home_feed" USING btree ("status_id");--> statement-breakpoint
CREATE INDEX "media_attachments_processing_idx" ON "media_attachments" USING btree ("id") WHERE "media_attachments"."state" = 'processing';--> statement-breakpoint
CREATE INDEX "status_edits_account_idx" ON "status_edits" USING btree ("account_id");