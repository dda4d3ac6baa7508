-- Collections (Mastodon 4.6 "starter packs", FEP-7aa9 FeaturedCollection):
-- curated public lists of accounts, local and cached remote, their items and
-- what refers to them (notifications, reports, statuses linking them), and a
-- remote actor's featuredCollections and feature policy (canFeature).
CREATE TABLE "collections" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"local" boolean NOT NULL,
	"uri" text,
	"url" text,
	"name" text NOT NULL,
	"description" text,
	"description_html" text,
	"language" text,
	"sensitive" boolean DEFAULT false NOT NULL,
	"discoverable" boolean DEFAULT true NOT NULL,
	"tag_id" bigint,
	"original_number_of_items" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "collections_uri_unique" UNIQUE("uri")
);
--> statement-breakpoint
ALTER TABLE "collections" ADD CONSTRAINT "collections_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collections" ADD CONSTRAINT "collections_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "collections_account_idx" ON "collections" USING btree ("account_id","created_at" DESC);--> statement-breakpoint
CREATE INDEX "collections_url_idx" ON "collections" USING btree ("url") WHERE "url" IS NOT NULL;--> statement-breakpoint

CREATE TABLE "collection_items" (
	"id" bigint PRIMARY KEY NOT NULL,
	"collection_id" bigint NOT NULL,
	"account_id" bigint,
	"state" text NOT NULL,
	"position" integer NOT NULL,
	"uri" text,
	"object_uri" text,
	"activity_uri" text,
	"approval_uri" text,
	"approval_last_verified_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "collection_items_uri_unique" UNIQUE("uri"),
	CONSTRAINT "collection_items_state_check" CHECK ("state" IN ('pending', 'accepted', 'rejected', 'revoked'))
);
--> statement-breakpoint
ALTER TABLE "collection_items" ADD CONSTRAINT "collection_items_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collection_items" ADD CONSTRAINT "collection_items_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "collection_items_member_idx" ON "collection_items" USING btree ("collection_id","account_id") WHERE "account_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "collection_items_position_idx" ON "collection_items" USING btree ("collection_id","position");--> statement-breakpoint
CREATE INDEX "collection_items_account_idx" ON "collection_items" USING btree ("account_id","state");--> statement-breakpoint
CREATE INDEX "collection_items_activity_idx" ON "collection_items" USING btree ("activity_uri") WHERE "activity_uri" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "collection_items_approval_idx" ON "collection_items" USING btree ("approval_uri") WHERE "approval_uri" IS NOT NULL;--> statement-breakpoint

ALTER TABLE "notifications" ADD COLUMN "collection_id" bigint;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notifications_collection_idx" ON "notifications" USING btree ("collection_id") WHERE "collection_id" IS NOT NULL;--> statement-breakpoint

ALTER TABLE "accounts" ADD COLUMN "featured_collections_url" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "feature_policy" jsonb;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "collection_ids" jsonb;--> statement-breakpoint

CREATE TABLE "status_collections" (
	"status_id" bigint NOT NULL,
	"collection_id" bigint NOT NULL,
	CONSTRAINT "status_collections_status_id_collection_id_pk" PRIMARY KEY("status_id","collection_id")
);
--> statement-breakpoint
ALTER TABLE "status_collections" ADD CONSTRAINT "status_collections_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_collections" ADD CONSTRAINT "status_collections_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "status_collections_collection_idx" ON "status_collections" USING btree ("collection_id");
