ALTER TABLE "tags" ADD COLUMN "display_name" text;--> statement-breakpoint
ALTER TABLE "tags" ADD COLUMN "usable" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "tags" ADD COLUMN "listable" boolean DEFAULT true NOT NULL;
