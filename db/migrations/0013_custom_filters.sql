-- Filters (Mastodon's CustomFilter) with their keywords and statuses. Keywords
-- and statuses repeat the filter's account_id, so the invalidation trigger
-- below can name the account from the row alone.
CREATE TABLE "custom_filters" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"title" text NOT NULL,
	"context" text[] DEFAULT '{}'::text[] NOT NULL,
	"action" text DEFAULT 'warn' NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custom_filter_keywords" (
	"id" bigint PRIMARY KEY NOT NULL,
	"custom_filter_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"keyword" text NOT NULL,
	"whole_word" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custom_filter_statuses" (
	"id" bigint PRIMARY KEY NOT NULL,
	"custom_filter_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"status_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "custom_filters" ADD CONSTRAINT "custom_filters_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_filter_keywords" ADD CONSTRAINT "custom_filter_keywords_custom_filter_id_custom_filters_id_fk" FOREIGN KEY ("custom_filter_id") REFERENCES "public"."custom_filters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_filter_statuses" ADD CONSTRAINT "custom_filter_statuses_custom_filter_id_custom_filters_id_fk" FOREIGN KEY ("custom_filter_id") REFERENCES "public"."custom_filters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_filter_statuses" ADD CONSTRAINT "custom_filter_statuses_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "custom_filters_account_idx" ON "custom_filters" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "custom_filter_keywords_filter_idx" ON "custom_filter_keywords" USING btree ("custom_filter_id","id");--> statement-breakpoint
CREATE INDEX "custom_filter_keywords_account_idx" ON "custom_filter_keywords" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "custom_filter_statuses_pair_idx" ON "custom_filter_statuses" USING btree ("custom_filter_id","status_id");--> statement-breakpoint
CREATE INDEX "custom_filter_statuses_status_idx" ON "custom_filter_statuses" USING btree ("status_id");--> statement-breakpoint
-- The per-process cache of each account's filters (api/entities/entity_cache.ts)
-- hears of every change to them as f<account id> on the entity channel.
CREATE FUNCTION rookery_notify_filters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('rookery_entities', 'f' || OLD.account_id);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('rookery_entities', 'f' || NEW.account_id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER custom_filters_entity_cache AFTER INSERT OR UPDATE OR DELETE ON custom_filters
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_filters();
--> statement-breakpoint
CREATE TRIGGER custom_filter_keywords_entity_cache
  AFTER INSERT OR UPDATE OR DELETE ON custom_filter_keywords
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_filters();
--> statement-breakpoint
CREATE TRIGGER custom_filter_statuses_entity_cache
  AFTER INSERT OR UPDATE OR DELETE ON custom_filter_statuses
  FOR EACH ROW EXECUTE FUNCTION rookery_notify_filters();
