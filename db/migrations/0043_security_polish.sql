-- When the browser session last confirmed its password for a sensitive
-- settings page (Mastodon's challenge_passed_at, its "sudo mode"): setting up
-- two-factor sign-in asks for the password again unless it was typed on this
-- session within the hour.
ALTER TABLE "web_sessions" ADD COLUMN "challenge_passed_at" timestamp with time zone;
