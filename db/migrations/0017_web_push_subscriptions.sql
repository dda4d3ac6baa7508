CREATE TABLE "web_push_subscriptions" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "web_push_subscriptions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"access_token_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"access_token" text NOT NULL,
	"endpoint" text NOT NULL,
	"key_p256dh" text NOT NULL,
	"key_auth" text NOT NULL,
	"standard" boolean DEFAULT false NOT NULL,
	"alerts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"policy" text DEFAULT 'all' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "web_push_subscriptions_access_token_id_unique" UNIQUE("access_token_id")
);
--> statement-breakpoint
ALTER TABLE "web_push_subscriptions" ADD CONSTRAINT "web_push_subscriptions_access_token_id_oauth_access_tokens_id_fk" FOREIGN KEY ("access_token_id") REFERENCES "public"."oauth_access_tokens"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "web_push_subscriptions" ADD CONSTRAINT "web_push_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "web_push_subscriptions_user_idx" ON "web_push_subscriptions" USING btree ("user_id");
--> statement-breakpoint
-- Tokens are revoked by setting revoked_at (several commands do), not by
-- deleting the row: the revoked token's subscription goes at that moment,
-- whichever command revoked it.
CREATE FUNCTION rookery_drop_revoked_push_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM web_push_subscriptions WHERE access_token_id = NEW.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER oauth_access_tokens_push_revoked AFTER UPDATE OF revoked_at ON oauth_access_tokens
  FOR EACH ROW WHEN (NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL)
  EXECUTE FUNCTION rookery_drop_revoked_push_subscription();
