-- Full-text search of statuses (db/queries/status_search.ts) on the database
-- itself: one row per searchable status (not deleted, not a boost) holding a
-- tsvector of its plain text and content warning in the language-neutral
-- 'simple' configuration, with a GIN index. A table of its own rather than a
-- column of statuses, because every status read selects all of statuses'
-- columns and a tsvector would ride along on each of them.
-- Triggers, not application code, keep it in step, so that no write path
-- (local posts and edits, the inbox's creates, updates and deletes, the admin
-- command line, hand-written SQL) can forget to.
CREATE TABLE "status_search" (
	"status_id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"public" boolean NOT NULL,
	"document" "tsvector" NOT NULL
);
--> statement-breakpoint
ALTER TABLE "status_search" ADD CONSTRAINT "status_search_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "status_search_document_idx" ON "status_search" USING gin ("document");
--> statement-breakpoint
CREATE INDEX "status_search_account_idx" ON "status_search" USING btree ("account_id","status_id");
--> statement-breakpoint
-- The words of a status: its HTML reduced to text (tags become spaces, the
-- entities our sanitizer and text_to_html.ts write are decoded) plus its
-- content warning. IMMUTABLE: the same input always gives the same vector.
CREATE FUNCTION rookery_status_document(content text, spoiler_text text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_tsvector('simple'::regconfig,
    coalesce(spoiler_text, '') || ' ' ||
    replace(replace(replace(replace(replace(replace(
      regexp_replace(coalesce(content, ''), '<[^>]*>', ' ', 'g'),
      '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&nbsp;', ' '), '&amp;', '&'))
$$;
--> statement-breakpoint
CREATE FUNCTION rookery_index_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.deleted_at IS NOT NULL OR NEW.reblog_of_id IS NOT NULL THEN
    DELETE FROM status_search WHERE status_id = NEW.id;
  ELSE
    INSERT INTO status_search (status_id, account_id, public, document)
    VALUES (NEW.id, NEW.account_id, NEW.visibility = 'public',
      rookery_status_document(NEW.content, NEW.spoiler_text))
    ON CONFLICT (status_id) DO UPDATE SET account_id = EXCLUDED.account_id,
      public = EXCLUDED.public, document = EXCLUDED.document;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER statuses_search_insert AFTER INSERT ON statuses
  FOR EACH ROW EXECUTE FUNCTION rookery_index_status();
--> statement-breakpoint
-- Counters and the like change often and do not concern the index.
CREATE TRIGGER statuses_search_update AFTER UPDATE ON statuses
  FOR EACH ROW WHEN (
    (OLD.content, OLD.spoiler_text, OLD.visibility, OLD.deleted_at, OLD.reblog_of_id)
    IS DISTINCT FROM
    (NEW.content, NEW.spoiler_text, NEW.visibility, NEW.deleted_at, NEW.reblog_of_id)
  ) EXECUTE FUNCTION rookery_index_status();
--> statement-breakpoint
INSERT INTO "status_search" ("status_id", "account_id", "public", "document")
  SELECT id, account_id, visibility = 'public', rookery_status_document(content, spoiler_text)
  FROM statuses WHERE deleted_at IS NULL AND reblog_of_id IS NULL;
