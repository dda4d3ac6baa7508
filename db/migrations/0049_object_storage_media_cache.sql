-- Object storage and the remote media cache (issue 32).
--
-- Accounts keep store keys, never URLs: a local account's avatar and header
-- are keys of the media store (actors/media/store/keys.ts), which gives their
-- URL (our /system route, or a bucket's alias host); a remote account keeps
-- its server's image URLs beside the keys of our cached copies.
ALTER TABLE "accounts" ADD COLUMN "avatar_key" text;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "avatar_remote_url" text;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "avatar_file_size" integer;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "avatar_cached_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "avatar_failed_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "header_key" text;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "header_remote_url" text;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "header_file_size" integer;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "header_cached_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "header_failed_at" timestamp with time zone;
--> statement-breakpoint
-- Our own URLs back into keys: only a file in the account's own folder, of the
-- shape the store writes, can come out (anything else was never ours).
UPDATE "accounts" SET
  "avatar_key" = substring("avatar_url" FROM
    '/system/(accounts/avatars/' || "id" || '/[0-9a-f]{32}\.(?:png|jpg|webp))$'),
  "header_key" = substring("header_url" FROM
    '/system/(accounts/headers/' || "id" || '/[0-9a-f]{32}\.(?:png|jpg|webp))$')
  WHERE "domain" IS NULL;
--> statement-breakpoint
UPDATE "accounts" SET "avatar_remote_url" = "avatar_url", "header_remote_url" = "header_url"
  WHERE "domain" IS NOT NULL;
--> statement-breakpoint
ALTER TABLE "accounts" DROP COLUMN "avatar_url";
--> statement-breakpoint
ALTER TABLE "accounts" DROP COLUMN "header_url";
--> statement-breakpoint
CREATE INDEX "accounts_cached_profile_idx" ON "accounts" ("id")
  WHERE "domain" IS NOT NULL AND ("avatar_key" IS NOT NULL OR "header_key" IS NOT NULL);
--> statement-breakpoint
-- Remote attachments: file_path and preview_path hold cache/ keys once fetched.
ALTER TABLE "media_attachments" ADD COLUMN "cached_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "media_attachments" ADD COLUMN "cache_failed_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "media_attachments" ADD COLUMN "preview_file_size" integer;
--> statement-breakpoint
CREATE INDEX "media_attachments_cached_idx" ON "media_attachments" ("cached_at")
  WHERE "cached_at" IS NOT NULL;
--> statement-breakpoint
-- Remote emoji: file_path and static_path hold cache/ keys once fetched.
ALTER TABLE "custom_emojis" ADD COLUMN "image_file_size" integer;
--> statement-breakpoint
ALTER TABLE "custom_emojis" ADD COLUMN "cached_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "custom_emojis" ADD COLUMN "cache_failed_at" timestamp with time zone;
--> statement-breakpoint
-- Card images: our copy beside the page's URL.
ALTER TABLE "preview_cards" RENAME COLUMN "image_url" TO "image_remote_url";
--> statement-breakpoint
ALTER TABLE "preview_cards" ADD COLUMN "image_key" text;
--> statement-breakpoint
ALTER TABLE "preview_cards" ADD COLUMN "image_file_size" integer;
--> statement-breakpoint
ALTER TABLE "preview_cards" ADD COLUMN "image_cached_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "preview_cards" ADD COLUMN "image_failed_at" timestamp with time zone;
--> statement-breakpoint
CREATE INDEX "preview_cards_cached_idx" ON "preview_cards" ("image_cached_at")
  WHERE "image_key" IS NOT NULL;
--> statement-breakpoint
-- Archives are store keys now (the folder store maps archives/ to DATA_DIR/archives/).
UPDATE "backups" SET "file_key" = 'archives/' || "file_key"
  WHERE "file_key" IS NOT NULL AND "file_key" NOT LIKE 'archives/%';
--> statement-breakpoint
-- Caching a remote emoji's image must not clear every process's entity cache
-- (the old trigger notified '*' on any file_path change): only local emoji
-- files, and what remote ones show, count.
DROP TRIGGER "custom_emojis_entity_cache" ON "custom_emojis";
--> statement-breakpoint
CREATE TRIGGER custom_emojis_entity_cache AFTER UPDATE ON custom_emojis FOR EACH ROW WHEN (
  (OLD.shortcode, OLD.domain, OLD.remote_url, OLD.category, OLD.visible_in_picker, OLD.disabled)
    IS DISTINCT FROM
  (NEW.shortcode, NEW.domain, NEW.remote_url, NEW.category, NEW.visible_in_picker, NEW.disabled)
  OR (NEW.domain IS NULL
    AND (OLD.file_path, OLD.static_path) IS DISTINCT FROM (NEW.file_path, NEW.static_path))
) EXECUTE FUNCTION rookery_notify_all();
