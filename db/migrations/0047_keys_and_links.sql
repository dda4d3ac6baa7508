-- Every key a remote actor lists (its publicKey and assertionMethod entries):
-- [{"id": "...#main-key", "type": "rsa" | "ed25519" | "other", "in": "publicKey" | "assertionMethod"}].
-- Any of them verifies its signatures; the first RSA key also stays in public_key_pem/public_key_id.
ALTER TABLE "accounts" ADD COLUMN "public_keys" jsonb DEFAULT '[]'::jsonb NOT NULL;
--> statement-breakpoint
-- The link a remote post names as its preview (FEP-8967: its `Link` attachment,
-- Mastodon 4.7), chosen over the links of its text; null for almost every row.
ALTER TABLE "statuses" ADD COLUMN "card_link" text;
