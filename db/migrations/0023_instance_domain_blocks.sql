-- Instance-wide domain blocks and the allow-list of limited federation
-- (Mastodon's DomainBlock and DomainAllow). Distinct from the user-level
-- account_domain_blocks. A block of example.com covers its subdomains.
CREATE TABLE "domain_blocks" (
	"id" bigint PRIMARY KEY NOT NULL,
	"domain" text NOT NULL,
	"severity" text DEFAULT 'silence' NOT NULL,
	"reject_media" boolean DEFAULT false NOT NULL,
	"reject_reports" boolean DEFAULT false NOT NULL,
	"private_comment" text,
	"public_comment" text,
	"obfuscate" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "domain_blocks_severity_check" CHECK ("severity" IN ('silence', 'suspend', 'noop'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "domain_blocks_domain_idx" ON "domain_blocks" USING btree ("domain");--> statement-breakpoint
CREATE TABLE "domain_allows" (
	"id" bigint PRIMARY KEY NOT NULL,
	"domain" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "domain_allows_domain_idx" ON "domain_allows" USING btree ("domain");--> statement-breakpoint
-- The names a block could be filed under for an account domain: the domain
-- itself (with its port, as account domains keep it), then its host and
-- every parent of the host (a.b.example.com, b.example.com, example.com, com).
-- The read side (db/queries/limited_accounts.ts) and actors/domain_rules.ts
-- compute the same list.
CREATE FUNCTION rookery_domain_variants(name text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_prepend(lower(name), coalesce(array_agg(array_to_string(parts[i:], '.') ORDER BY i), '{}'))
  FROM (SELECT string_to_array(regexp_replace(lower(name), ':[0-9]+$', ''), '.') AS parts) p,
    generate_subscripts(p.parts, 1) AS i
$$;
--> statement-breakpoint
-- Every process keeps the rules in memory (actors/domain_rules.ts) and
-- forgets them when this fires, at commit, whoever wrote.
CREATE FUNCTION rookery_notify_domain_rules() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('rookery_domain_rules', TG_TABLE_NAME);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER domain_blocks_rules AFTER INSERT OR UPDATE OR DELETE ON domain_blocks
  FOR EACH STATEMENT EXECUTE FUNCTION rookery_notify_domain_rules();
--> statement-breakpoint
CREATE TRIGGER domain_allows_rules AFTER INSERT OR UPDATE OR DELETE ON domain_allows
  FOR EACH STATEMENT EXECUTE FUNCTION rookery_notify_domain_rules();
