CREATE TABLE "status_translations" (
	"status_id" bigint NOT NULL,
	"language" text NOT NULL,
	"source_digest" text NOT NULL,
	"translation" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "status_translations_status_id_language_pk" PRIMARY KEY("status_id","language")
);
--> statement-breakpoint
ALTER TABLE "status_translations" ADD CONSTRAINT "status_translations_status_id_statuses_id_fk" FOREIGN KEY ("status_id") REFERENCES "public"."statuses"("id") ON DELETE cascade ON UPDATE no action;
