-- A large fan-out's home rows, promised: the posting transaction stores who
-- receives the status here (and publishes its `update`), a second
-- transaction right after the commit writes the home_feed rows and deletes
-- this row (actors/timelines/pending_home.ts). The home page reads the
-- viewer's rows here besides home_feed, so a client reading home on the
-- frame finds the post. A few rows at any time.
CREATE TABLE "pending_home" (
	"status_id" bigint PRIMARY KEY NOT NULL,
	"reblog_of_id" bigint,
	"receivers" bigint[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
