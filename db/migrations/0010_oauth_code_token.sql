-- The token an authorization code was exchanged for, so that presenting the
-- code a second time can revoke it (RFC 6749 4.1.2).
ALTER TABLE "oauth_authorization_codes" ADD COLUMN "access_token_id" bigint;--> statement-breakpoint
ALTER TABLE "oauth_authorization_codes" ADD CONSTRAINT "oauth_authorization_codes_access_token_id_oauth_access_tokens_id_fk" FOREIGN KEY ("access_token_id") REFERENCES "public"."oauth_access_tokens"("id") ON DELETE set null ON UPDATE no action;