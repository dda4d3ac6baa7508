DROP INDEX "home_feed_reblog_idx";--> statement-breakpoint
CREATE INDEX "home_feed_reblog_idx" ON "home_feed" USING btree ("account_id","reblog_of_id") WHERE "home_feed"."reblog_of_id" IS NOT NULL;