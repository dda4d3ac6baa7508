ALTER TABLE "accounts" ADD COLUMN "silenced_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "sensitized_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "suspension_origin" text;--> statement-breakpoint
CREATE TABLE "account_warnings" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint,
	"target_account_id" bigint NOT NULL,
	"action" text NOT NULL,
	"text" text DEFAULT '' NOT NULL,
	"report_id" bigint,
	"status_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "account_warnings" ADD CONSTRAINT "account_warnings_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_warnings" ADD CONSTRAINT "account_warnings_target_account_id_accounts_id_fk" FOREIGN KEY ("target_account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_warnings" ADD CONSTRAINT "account_warnings_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_warnings_target_account_idx" ON "account_warnings" USING btree ("target_account_id","id");--> statement-breakpoint
CREATE INDEX "accounts_suspended_at_idx" ON "accounts" USING btree ("suspended_at") WHERE "accounts"."suspended_at" IS NOT NULL;
