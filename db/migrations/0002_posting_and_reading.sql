CREATE TABLE "account_conversations" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"conversation_id" bigint NOT NULL,
	"participant_account_ids" jsonb NOT NULL,
	"last_status_id" bigint,
	"unread" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bookmarks" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"status_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conversation_mutes" (
	"account_id" bigint NOT NULL,
	"conversation_id" bigint NOT NULL,
	CONSTRAINT "conversation_mutes_account_id_conversation_id_pk" PRIMARY KEY("account_id","conversation_id")
);
--> statement-breakpoint
CREATE TABLE "conversations" (
	"id" bigint PRIMARY KEY NOT NULL,
	"uri" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversations_uri_unique" UNIQUE("uri")
);
--> statement-breakpoint
CREATE TABLE "favourites" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"status_id" bigint NOT NULL,
	"uri" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "home_feed" (
	"account_id" bigint NOT NULL,
	"status_id" bigint NOT NULL,
	"reblog_of_id" bigint,
	CONSTRAINT "home_feed_account_id_status_id_pk" PRIMARY KEY("account_id","status_id")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"account_id" bigint NOT NULL,
	"key" text NOT NULL,
	"status_id" bigint,
	"scheduled_status_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_account_id_key_pk" PRIMARY KEY("account_id","key")
);
--> statement-breakpoint
CREATE TABLE "list_accounts" (
	"id" bigint PRIMARY KEY NOT NULL,
	"list_id" bigint NOT NULL,
	"account_id" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "list_feed" (
	"list_id" bigint NOT NULL,
	"status_id" bigint NOT NULL,
	CONSTRAINT "list_feed_list_id_status_id_pk" PRIMARY KEY("list_id","status_id")
);
--> statement-breakpoint
CREATE TABLE "lists" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"title" text NOT NULL,
	"replies_policy" text DEFAULT 'list' NOT NULL,
	"exclusive" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "markers" (
	"user_id" bigint NOT NULL,
	"timeline" text NOT NULL,
	"last_read_id" text NOT NULL,
	"version" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "markers_user_id_timeline_pk" PRIMARY KEY("user_id","timeline")
);
--> statement-breakpoint
CREATE TABLE "media_attachments" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"status_id" bigint,
	"scheduled_status_id" bigint,
	"type" text DEFAULT 'image' NOT NULL,
	"file_path" text,
	"preview_path" text,
	"content_type" text,
	"file_size" integer,
	"remote_url" text,
	"state" text DEFAULT 'processed' NOT NULL,
	"meta" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"description" text,
	"blurhash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mentions" (
	"id" bigint PRIMARY KEY NOT NULL,
	"status_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"silent" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"from_account_id" bigint NOT NULL,
	"type" text NOT NULL,
	"status_id" bigint,
	"group_key" text,
	"filtered" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "poll_votes" (
	"id" bigint PRIMARY KEY NOT NULL,
	"poll_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"choice" integer NOT NULL,
	"uri" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "polls" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"status_id" bigint,
	"uri" text,
	"options" jsonb NOT NULL,
	"tallies" jsonb NOT NULL,
	"multiple" boolean DEFAULT false NOT NULL,
	"hide_totals" boolean DEFAULT false NOT NULL,
	"votes_count" integer DEFAULT 0 NOT NULL,
	"voters_count" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"last_fetched_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "preview_cards" (
	"id" bigint PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"type" text DEFAULT 'link' NOT NULL,
	"author_name" text DEFAULT '' NOT NULL,
	"author_url" text DEFAULT '' NOT NULL,
	"provider_name" text DEFAULT '' NOT NULL,
	"provider_url" text DEFAULT '' NOT NULL,
	"html" text DEFAULT '' NOT NULL,
	"width" integer DEFAULT 0 NOT NULL,
	"height" integer DEFAULT 0 NOT NULL,
	"image_url" text,
	"embed_url" text DEFAULT '' NOT NULL,
	"blurhash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "preview_cards_url_unique" UNIQUE("url")
);
--> statement-breakpoint
CREATE TABLE "quotes" (
	"id" bigint PRIMARY KEY NOT NULL,
	"status_id" bigint NOT NULL,
	"quoted_status_id" bigint,
	"account_id" bigint NOT NULL,
	"quoted_account_id" bigint,
	"state" text DEFAULT 'pending' NOT NULL,
	"activity_uri" text,
	"approval_uri" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scheduled_statuses" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"scheduled_at" timestamp with time zone NOT NULL,
	"params" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "status_edits" (
	"id" bigint PRIMARY KEY NOT NULL,
	"status_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"text" text,
	"content" text NOT NULL,
	"spoiler_text" text DEFAULT '' NOT NULL,
	"sensitive" boolean DEFAULT false NOT NULL,
	"media_attachment_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"poll_options" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "status_pins" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"status_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "statuses_preview_cards" (
	"status_id" bigint NOT NULL,
	"preview_card_id" bigint NOT NULL,
	CONSTRAINT "statuses_preview_cards_status_id_preview_card_id_pk" PRIMARY KEY("status_id","preview_card_id")
);
--> statement-breakpoint
CREATE TABLE "statuses_tags" (
	"status_id" bigint NOT NULL,
	"tag_id" bigint NOT NULL,
	CONSTRAINT "statuses_tags_status_id_tag_id_pk" PRIMARY KEY("status_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "tag_follows" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"tag_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "text" text;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "spoiler_text" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "sensitive" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "language" text;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "in_reply_to_id" bigint;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "in_reply_to_account_id" bigint;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "in_reply_to_uri" text;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "reblog_of_id" bigint;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "conversation_id" bigint;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "application_id" bigint;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "poll_id" bigint;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "quoted_status_id" bigint;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "quote_approval_policy" text DEFAULT 'public' NOT NULL;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "replies_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "reblogs_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "favourites_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "quotes_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "edited_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "account_conversations" ADD CONSTRAINT "account_conversations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_conversations" ADD CONSTRAINT "account_conversations_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bookmarks" ADD CONSTRAINT "bookmarks_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bookmarks" ADD CONSTRAINT "bookmarks_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_mutes" ADD CONSTRAINT "conversation_mutes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_mutes" ADD CONSTRAINT "conversation_mutes_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "favourites" ADD CONSTRAINT "favourites_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "favourites" ADD CONSTRAINT "favourites_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "home_feed" ADD CONSTRAINT "home_feed_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "home_feed" ADD CONSTRAINT "home_feed_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "list_accounts" ADD CONSTRAINT "list_accounts_list_id_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "list_accounts" ADD CONSTRAINT "list_accounts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "list_feed" ADD CONSTRAINT "list_feed_list_id_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "list_feed" ADD CONSTRAINT "list_feed_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lists" ADD CONSTRAINT "lists_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "markers" ADD CONSTRAINT "markers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "media_attachments" ADD CONSTRAINT "media_attachments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "media_attachments" ADD CONSTRAINT "media_attachments_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mentions" ADD CONSTRAINT "mentions_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mentions" ADD CONSTRAINT "mentions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_from_account_id_accounts_id_fk" FOREIGN KEY ("from_account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "poll_votes" ADD CONSTRAINT "poll_votes_poll_id_polls_id_fk" FOREIGN KEY ("poll_id") REFERENCES "public"."polls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "poll_votes" ADD CONSTRAINT "poll_votes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "polls" ADD CONSTRAINT "polls_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "polls" ADD CONSTRAINT "polls_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_quoted_status_id_statuses_id_fk" FOREIGN KEY ("quoted_status_id") REFERENCES "public"."statuses"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_quoted_account_id_accounts_id_fk" FOREIGN KEY ("quoted_account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_statuses" ADD CONSTRAINT "scheduled_statuses_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_edits" ADD CONSTRAINT "status_edits_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_edits" ADD CONSTRAINT "status_edits_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_pins" ADD CONSTRAINT "status_pins_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_pins" ADD CONSTRAINT "status_pins_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statuses_preview_cards" ADD CONSTRAINT "statuses_preview_cards_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statuses_preview_cards" ADD CONSTRAINT "statuses_preview_cards_preview_card_id_preview_cards_id_fk" FOREIGN KEY ("preview_card_id") REFERENCES "public"."preview_cards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statuses_tags" ADD CONSTRAINT "statuses_tags_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "statuses_tags" ADD CONSTRAINT "statuses_tags_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_follows" ADD CONSTRAINT "tag_follows_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tag_follows" ADD CONSTRAINT "tag_follows_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "account_conversations_key_idx" ON "account_conversations" USING btree ("account_id","conversation_id","participant_account_ids");--> statement-breakpoint
CREATE INDEX "account_conversations_last_idx" ON "account_conversations" USING btree ("account_id","last_status_id");--> statement-breakpoint
CREATE UNIQUE INDEX "bookmarks_pair_idx" ON "bookmarks" USING btree ("account_id","status_id");--> statement-breakpoint
CREATE INDEX "bookmarks_account_idx" ON "bookmarks" USING btree ("account_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "favourites_pair_idx" ON "favourites" USING btree ("account_id","status_id");--> statement-breakpoint
CREATE INDEX "favourites_status_idx" ON "favourites" USING btree ("status_id","id");--> statement-breakpoint
CREATE INDEX "favourites_account_idx" ON "favourites" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "home_feed_reblog_idx" ON "home_feed" USING btree ("account_id","reblog_of_id");--> statement-breakpoint
CREATE UNIQUE INDEX "list_accounts_pair_idx" ON "list_accounts" USING btree ("list_id","account_id");--> statement-breakpoint
CREATE INDEX "list_accounts_account_idx" ON "list_accounts" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "lists_account_idx" ON "lists" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "media_attachments_status_idx" ON "media_attachments" USING btree ("status_id");--> statement-breakpoint
CREATE INDEX "media_attachments_account_idx" ON "media_attachments" USING btree ("account_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "mentions_pair_idx" ON "mentions" USING btree ("status_id","account_id");--> statement-breakpoint
CREATE INDEX "mentions_account_idx" ON "mentions" USING btree ("account_id","status_id");--> statement-breakpoint
CREATE INDEX "notifications_account_idx" ON "notifications" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "notifications_group_idx" ON "notifications" USING btree ("account_id","group_key","id");--> statement-breakpoint
CREATE INDEX "notifications_status_idx" ON "notifications" USING btree ("status_id");--> statement-breakpoint
CREATE UNIQUE INDEX "poll_votes_choice_idx" ON "poll_votes" USING btree ("poll_id","account_id","choice");--> statement-breakpoint
CREATE INDEX "polls_status_idx" ON "polls" USING btree ("status_id");--> statement-breakpoint
CREATE INDEX "polls_open_idx" ON "polls" USING btree ("expires_at") WHERE "polls"."closed_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "quotes_status_idx" ON "quotes" USING btree ("status_id");--> statement-breakpoint
CREATE INDEX "quotes_quoted_idx" ON "quotes" USING btree ("quoted_status_id","id");--> statement-breakpoint
CREATE INDEX "scheduled_statuses_due_idx" ON "scheduled_statuses" USING btree ("scheduled_at");--> statement-breakpoint
CREATE INDEX "scheduled_statuses_account_idx" ON "scheduled_statuses" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "status_edits_status_idx" ON "status_edits" USING btree ("status_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "status_pins_pair_idx" ON "status_pins" USING btree ("account_id","status_id");--> statement-breakpoint
CREATE INDEX "statuses_preview_cards_card_idx" ON "statuses_preview_cards" USING btree ("preview_card_id","status_id");--> statement-breakpoint
CREATE INDEX "statuses_tags_tag_idx" ON "statuses_tags" USING btree ("tag_id","status_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tag_follows_pair_idx" ON "tag_follows" USING btree ("account_id","tag_id");--> statement-breakpoint
CREATE INDEX "tag_follows_tag_idx" ON "tag_follows" USING btree ("tag_id");--> statement-breakpoint
ALTER TABLE "statuses" ADD CONSTRAINT "statuses_application_id_oauth_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."oauth_applications"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "follows_account_idx" ON "follows" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "statuses_public_idx" ON "statuses" USING btree ("id") WHERE "statuses"."visibility" = 'public' AND "statuses"."deleted_at" IS NULL AND "statuses"."reblog_of_id" IS NULL;--> statement-breakpoint
CREATE INDEX "statuses_reply_idx" ON "statuses" USING btree ("in_reply_to_id");--> statement-breakpoint
CREATE INDEX "statuses_reblog_idx" ON "statuses" USING btree ("reblog_of_id","account_id");--> statement-breakpoint
CREATE INDEX "statuses_conversation_idx" ON "statuses" USING btree ("conversation_id");--> statement-breakpoint
CREATE INDEX "statuses_quoted_idx" ON "statuses" USING btree ("quoted_status_id");