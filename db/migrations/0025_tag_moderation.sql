ALTER TABLE "tags" ADD COLUMN "display_name" text;--> statement-breakpoint
ALTER TABLE "tags" ADD COLUMN "usable" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "tags" ADD COLUMN "listable" boolean DEFAULT true NOT NULL;--> statement-breakpoint
CREATE TABLE "trend_publishers" (
	"id" bigint PRIMARY KEY NOT NULL,
	"domain" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "trend_publishers_domain_idx" ON "trend_publishers" USING btree ("domain");
--> statement-breakpoint
CREATE INDEX "reports_action_taken_at_idx" ON "reports" USING btree ("action_taken_at") WHERE "reports"."action_taken_at" IS NOT NULL;
