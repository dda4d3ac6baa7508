CREATE TABLE "admin_action_logs" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text,
	"human_identifier" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "admin_action_logs" ADD CONSTRAINT "admin_action_logs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "admin_action_logs_account_idx" ON "admin_action_logs" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "admin_action_logs_target_idx" ON "admin_action_logs" USING btree ("target_type","target_id");
