ALTER TABLE "notifications" ADD COLUMN "account_warning_id" bigint;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_account_warning_id_account_warnings_id_fk" FOREIGN KEY ("account_warning_id") REFERENCES "public"."account_warnings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notifications_account_warning_idx" ON "notifications" USING btree ("account_warning_id");--> statement-breakpoint
CREATE TABLE "user_activity_days" (
	"user_id" bigint NOT NULL,
	"day" date NOT NULL,
	CONSTRAINT "user_activity_days_user_id_day_pk" PRIMARY KEY("user_id","day")
);
--> statement-breakpoint
ALTER TABLE "user_activity_days" ADD CONSTRAINT "user_activity_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "user_activity_days_day_idx" ON "user_activity_days" USING btree ("day");--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "created_by_application_id" bigint;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_created_by_application_id_oauth_applications_id_fk" FOREIGN KEY ("created_by_application_id") REFERENCES "public"."oauth_applications"("id") ON DELETE set null ON UPDATE no action;
