CREATE TABLE "generated_annual_reports" (
	"id" bigint PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"year" integer NOT NULL,
	"schema_version" integer NOT NULL,
	"data" jsonb NOT NULL,
	"viewed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "generated_annual_reports" ADD CONSTRAINT "generated_annual_reports_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "generated_annual_reports_account_year_idx" ON "generated_annual_reports" USING btree ("account_id","year");
