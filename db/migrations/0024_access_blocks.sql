CREATE TABLE "email_domain_blocks" (
	"id" bigint PRIMARY KEY NOT NULL,
	"domain" text NOT NULL,
	"allow_with_approval" boolean DEFAULT false NOT NULL,
	"parent_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_domain_blocks_domain_unique" UNIQUE("domain")
);
--> statement-breakpoint
CREATE TABLE "email_domain_block_attempts" (
	"block_id" bigint NOT NULL,
	"day" date NOT NULL,
	"ip" text NOT NULL,
	"uses" integer DEFAULT 1 NOT NULL,
	CONSTRAINT "email_domain_block_attempts_block_id_day_ip_pk" PRIMARY KEY("block_id","day","ip")
);
--> statement-breakpoint
CREATE TABLE "ip_blocks" (
	"id" bigint PRIMARY KEY NOT NULL,
	"ip" "inet" NOT NULL,
	"severity" text NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ip_blocks_ip_unique" UNIQUE("ip"),
	CONSTRAINT "ip_blocks_severity_check" CHECK ("ip_blocks"."severity" IN ('sign_up_requires_approval', 'sign_up_block', 'no_access'))
);
--> statement-breakpoint
CREATE TABLE "canonical_email_blocks" (
	"id" bigint PRIMARY KEY NOT NULL,
	"canonical_email_hash" text NOT NULL,
	"reference_account_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "canonical_email_blocks_canonical_email_hash_unique" UNIQUE("canonical_email_hash")
);
--> statement-breakpoint
ALTER TABLE "email_domain_blocks" ADD CONSTRAINT "email_domain_blocks_parent_id_email_domain_blocks_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."email_domain_blocks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_domain_block_attempts" ADD CONSTRAINT "email_domain_block_attempts_block_id_email_domain_blocks_id_fk" FOREIGN KEY ("block_id") REFERENCES "public"."email_domain_blocks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "canonical_email_blocks" ADD CONSTRAINT "canonical_email_blocks_reference_account_id_accounts_id_fk" FOREIGN KEY ("reference_account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_domain_block_attempts_day_idx" ON "email_domain_block_attempts" USING btree ("day");--> statement-breakpoint
CREATE INDEX "ip_blocks_severity_idx" ON "ip_blocks" USING btree ("severity");--> statement-breakpoint
-- Every process keeps the IP blocks in memory (actors/access_blocks/ip_block_cache.ts)
-- to refuse no_access addresses without a query per request; any change to
-- the table tells them all to reload, at commit.
CREATE FUNCTION rookery_notify_ip_blocks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rookery_ip_blocks', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER ip_blocks_cache AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ip_blocks
  FOR EACH STATEMENT EXECUTE FUNCTION rookery_notify_ip_blocks();
