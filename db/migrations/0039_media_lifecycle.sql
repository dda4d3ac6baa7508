CREATE TABLE "media_file_deletions" (
	"key" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "media_attachments" ADD COLUMN "detached_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "media_attachments_unattached_idx" ON "media_attachments" USING btree ("id") WHERE "media_attachments"."status_id" IS NULL AND "media_attachments"."scheduled_status_id" IS NULL;
