/**
 * The database schema, shared by PGlite and PostgreSQL.
 *
 * Migrations under `db/migrations/` are generated from this file with
 * `deno task db:generate` and committed; `db/migrate.ts` applies them at start.
 * Ids are snowflakes (see `db/ids.ts`) stored as bigint and handled as strings.
 */
export * from "./schema/core.ts";
export * from "./schema/statuses.ts";
export * from "./schema/extras.ts";
export * from "./schema/discovery.ts";
export * from "./schema/filters.ts";
export * from "./schema/announcements.ts";
export * from "./schema/push.ts";
export * from "./schema/streaming.ts";
export * from "./schema/moderation.ts";
export * from "./schema/federation_rules.ts";
export * from "./schema/access_blocks.ts";
export * from "./schema/moves.ts";
export * from "./schema/data_imports.ts";
export * from "./schema/reply_crawls.ts";
export * from "./schema/backups.ts";
export * from "./schema/annual_reports.ts";
export * from "./schema/translations.ts";
export * from "./schema/media_files.ts";
export * from "./schema/early_deletes.ts";
