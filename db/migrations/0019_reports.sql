CREATE TABLE "reports" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint,
	"target_account_id" bigint NOT NULL,
	"status_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"comment" text DEFAULT '' NOT NULL,
	"category" text DEFAULT 'other' NOT NULL,
	"rule_ids" jsonb,
	"forwarded" boolean DEFAULT false NOT NULL,
	"forward_to_domains" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"uri" text,
	"action_taken_at" timestamp with time zone,
	"action_taken_by_account_id" bigint,
	"assigned_account_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "report_id" bigint;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_target_account_id_accounts_id_fk" FOREIGN KEY ("target_account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_action_taken_by_account_id_accounts_id_fk" FOREIGN KEY ("action_taken_by_account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_assigned_account_id_accounts_id_fk" FOREIGN KEY ("assigned_account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reports_target_account_idx" ON "reports" USING btree ("target_account_id","id");--> statement-breakpoint
CREATE INDEX "reports_account_idx" ON "reports" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "reports_uri_target_idx" ON "reports" USING btree ("uri","target_account_id");--> statement-breakpoint
CREATE INDEX "notifications_report_idx" ON "notifications" USING btree ("report_id");
