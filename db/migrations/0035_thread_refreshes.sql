CREATE TABLE "reply_crawls" (
	"status_id" bigint PRIMARY KEY NOT NULL,
	"crawled_at" timestamp with time zone DEFAULT now() NOT NULL,
	"refresh_id" text,
	"state" text,
	"result_count" integer DEFAULT 0 NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "reply_crawls" ADD CONSTRAINT "reply_crawls_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reply_crawls_refresh_idx" ON "reply_crawls" USING btree ("refresh_id");
