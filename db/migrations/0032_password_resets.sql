ALTER TABLE "users" ADD COLUMN "reset_password_token_hash" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "reset_password_sent_at" timestamp with time zone;
