ALTER TABLE "home_feed" DROP CONSTRAINT "home_feed_account_id_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "home_feed" DROP CONSTRAINT "home_feed_status_id_statuses_id_fk";
