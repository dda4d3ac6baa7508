ALTER TABLE "users" ADD COLUMN "reset_password_token_hash" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "reset_password_sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "otp_secret" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "otp_required_for_login" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "otp_backup_codes" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "otp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "web_sessions" ADD COLUMN "pending_otp_secret" text;--> statement-breakpoint
CREATE TABLE "sign_in_challenges" (
	"id" bigint PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"user_id" bigint NOT NULL,
	"destination" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sign_in_challenges_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "sign_in_challenges" ADD CONSTRAINT "sign_in_challenges_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
