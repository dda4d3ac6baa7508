CREATE TABLE "trend_scores" (
	"kind" text NOT NULL,
	"target_id" bigint NOT NULL,
	"score" double precision NOT NULL,
	"accounts" integer NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trend_scores_kind_target_id_pk" PRIMARY KEY("kind","target_id")
);
--> statement-breakpoint
CREATE INDEX "trend_scores_rank_idx" ON "trend_scores" USING btree ("kind","score");
--> statement-breakpoint
CREATE TABLE "trend_reviews" (
	"kind" text NOT NULL,
	"target_id" bigint NOT NULL,
	"state" text NOT NULL,
	"reviewed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trend_reviews_kind_target_id_pk" PRIMARY KEY("kind","target_id")
);
--> statement-breakpoint
CREATE TABLE "suggestion_features" (
	"account_id" bigint PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "suggestion_dismissals" (
	"account_id" bigint NOT NULL,
	"target_account_id" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "suggestion_dismissals_account_id_target_account_id_pk" PRIMARY KEY("account_id","target_account_id")
);
--> statement-breakpoint
ALTER TABLE "suggestion_features" ADD CONSTRAINT "suggestion_features_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "suggestion_dismissals" ADD CONSTRAINT "suggestion_dismissals_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "suggestion_dismissals" ADD CONSTRAINT "suggestion_dismissals_target_account_id_accounts_id_fk" FOREIGN KEY ("target_account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;