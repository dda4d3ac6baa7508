CREATE TABLE "preview_card_failures" (
	"url" text PRIMARY KEY NOT NULL,
	"failed_at" timestamp with time zone DEFAULT now() NOT NULL
);
