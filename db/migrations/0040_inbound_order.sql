-- Inbound activities in their order: every inbox message now has an
-- ordering key (its actor). A message is `ready` when it is the oldest of
-- its key (or has none); workers claim ready messages only, so the waiting
-- ones of a busy actor are never read by a claim (federation/stores/sql_queue.ts).
-- Rows written by an older process have `ready` false until a worker's sweep
-- looks at them.
ALTER TABLE "federation_queue" ADD COLUMN "ready" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "federation_queue" q SET "ready" = true
WHERE q."ordering_key" IS NULL OR NOT EXISTS (
	SELECT 1 FROM "federation_queue" p WHERE p."ordering_key" = q."ordering_key" AND p."id" < q."id");--> statement-breakpoint
DROP INDEX "federation_queue_run_idx";--> statement-breakpoint
CREATE INDEX "federation_queue_ready_idx" ON "federation_queue" USING btree ("run_at","id") WHERE "ready";--> statement-breakpoint
CREATE INDEX "federation_queue_ordering_idx" ON "federation_queue" USING btree ("ordering_key","id") WHERE "ordering_key" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "federation_queue_head_idx" ON "federation_queue" USING btree ("ordering_key") WHERE "ready" AND "ordering_key" IS NOT NULL;--> statement-breakpoint
-- Deletes and Undos that arrived before what they remove (Mastodon's
-- delete_upon_arrival): the Create, Like, Announce, Follow or Block that
-- comes later is dropped. Kept a day (federation/early_deletes.ts).
CREATE TABLE "early_deletes" (
	"uri" text NOT NULL,
	"account_id" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "early_deletes_pkey" PRIMARY KEY("uri","account_id")
);
--> statement-breakpoint
ALTER TABLE "early_deletes" ADD CONSTRAINT "early_deletes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "early_deletes_account_idx" ON "early_deletes" USING btree ("account_id","expires_at");--> statement-breakpoint
CREATE INDEX "early_deletes_expires_idx" ON "early_deletes" USING btree ("expires_at");
