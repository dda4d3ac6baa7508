ALTER TABLE "accounts" ADD COLUMN "last_webfingered_at" timestamp with time zone;
