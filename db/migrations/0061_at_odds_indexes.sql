-- Fan-out reads once per status the accounts blocks and mutes may refuse it
-- to (actors/timelines/feed_filters.ts, AT_ODDS): the mutes of its authors,
-- and the domain blocks of their domains, looked up from the author's side.
CREATE INDEX IF NOT EXISTS "mutes_target_idx" ON "mutes" USING btree ("target_account_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "account_domain_blocks_domain_idx" ON "account_domain_blocks" USING btree (lower("domain"));
