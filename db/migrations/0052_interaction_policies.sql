-- Interaction policies (issue 34): who may favourite, reply to, boost and
-- quote a status. Every new column is NULL or has a constant default, so no
-- table is rewritten and no data is migrated: a NULL policy means the
-- built-in defaults for a local status (model/interaction_policy.ts) and a
-- server unaware of policies for a remote one.
ALTER TABLE "statuses" ADD COLUMN "interaction_policy" jsonb;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "pending_approval" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "statuses" ADD COLUMN "approved_by_uri" text;--> statement-breakpoint
ALTER TABLE "favourites" ADD COLUMN "pending_approval" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "favourites" ADD COLUMN "approved_by_uri" text;--> statement-breakpoint
-- Interactions waiting for, or decided by, an author's approval, both ways.
CREATE TABLE "interaction_requests" (
	"id" bigint PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"target_status_id" bigint NOT NULL,
	"target_account_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"status_id" bigint,
	"favourite_id" bigint,
	"interaction_uri" text NOT NULL,
	"request_uri" text,
	"polite" boolean DEFAULT false NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"authorization_uri" text,
	"response_uri" text,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "interaction_requests" ADD CONSTRAINT "interaction_requests_target_status_id_statuses_id_fk" FOREIGN KEY ("target_status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "interaction_requests" ADD CONSTRAINT "interaction_requests_target_account_id_accounts_id_fk" FOREIGN KEY ("target_account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "interaction_requests" ADD CONSTRAINT "interaction_requests_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "interaction_requests" ADD CONSTRAINT "interaction_requests_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "interaction_requests" ADD CONSTRAINT "interaction_requests_favourite_id_favourites_id_fk" FOREIGN KEY ("favourite_id") REFERENCES "public"."favourites"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "interaction_requests_interaction_idx" ON "interaction_requests" USING btree ("interaction_uri");--> statement-breakpoint
CREATE UNIQUE INDEX "interaction_requests_request_idx" ON "interaction_requests" USING btree ("request_uri") WHERE "interaction_requests"."request_uri" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "interaction_requests_authorization_idx" ON "interaction_requests" USING btree ("authorization_uri") WHERE "interaction_requests"."authorization_uri" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "interaction_requests_pending_idx" ON "interaction_requests" USING btree ("target_account_id","id") WHERE "interaction_requests"."state" = 'pending';--> statement-breakpoint
CREATE INDEX "interaction_requests_status_idx" ON "interaction_requests" USING btree ("status_id");--> statement-breakpoint
CREATE INDEX "interaction_requests_favourite_idx" ON "interaction_requests" USING btree ("favourite_id");--> statement-breakpoint
CREATE INDEX "interaction_requests_target_idx" ON "interaction_requests" USING btree ("target_status_id");--> statement-breakpoint
CREATE INDEX "interaction_requests_account_idx" ON "interaction_requests" USING btree ("account_id");
