CREATE TABLE "announcements" (
	"id" bigint PRIMARY KEY NOT NULL,
	"text" text NOT NULL,
	"content" text NOT NULL,
	"starts_at" timestamp with time zone,
	"ends_at" timestamp with time zone,
	"all_day" boolean DEFAULT false NOT NULL,
	"published" boolean DEFAULT false NOT NULL,
	"published_at" timestamp with time zone,
	"mention_account_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tag_names" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "announcement_mutes" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"announcement_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "announcement_reactions" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"announcement_id" bigint NOT NULL,
	"name" text NOT NULL,
	"custom_emoji_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "announcement_mutes" ADD CONSTRAINT "announcement_mutes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announcement_mutes" ADD CONSTRAINT "announcement_mutes_announcement_id_announcements_id_fk" FOREIGN KEY ("announcement_id") REFERENCES "public"."announcements"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announcement_reactions" ADD CONSTRAINT "announcement_reactions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announcement_reactions" ADD CONSTRAINT "announcement_reactions_announcement_id_announcements_id_fk" FOREIGN KEY ("announcement_id") REFERENCES "public"."announcements"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "announcement_reactions" ADD CONSTRAINT "announcement_reactions_custom_emoji_id_custom_emojis_id_fk" FOREIGN KEY ("custom_emoji_id") REFERENCES "public"."custom_emojis"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "announcement_mutes_pair_idx" ON "announcement_mutes" USING btree ("account_id","announcement_id");--> statement-breakpoint
CREATE UNIQUE INDEX "announcement_reactions_unique_idx" ON "announcement_reactions" USING btree ("account_id","announcement_id","name");--> statement-breakpoint
CREATE INDEX "announcement_reactions_announcement_idx" ON "announcement_reactions" USING btree ("announcement_id");
