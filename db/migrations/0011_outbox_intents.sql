CREATE TABLE "outbox_intents" (
	"id" bigint PRIMARY KEY NOT NULL,
	"method" text NOT NULL,
	"args" jsonb NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "outbox_intents_next_attempt_idx" ON "outbox_intents" USING btree ("next_attempt_at");