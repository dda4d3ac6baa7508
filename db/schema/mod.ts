/**
 * The database schema, shared by PGlite and PostgreSQL.
 *
 * Migrations under `db/migrations/` are generated from this file with
 * `deno task db:generate` and committed; `db/migrate.ts` applies them at start.
 * Ids are snowflakes (see `db/ids.ts`) stored as bigint and handled as strings.
 */
export * from "./core.ts";
export * from "./statuses.ts";
export * from "./extras.ts";
export * from "./discovery.ts";
export * from "./filters.ts";
export * from "./announcements.ts";
export * from "./push.ts";
export * from "./streaming.ts";
export * from "./moderation.ts";
export * from "./federation_rules.ts";
export * from "./access_blocks.ts";
export * from "./moves.ts";
export * from "./data_imports.ts";
export * from "./reply_crawls.ts";
export * from "./backups.ts";
export * from "./annual_reports.ts";
export * from "./translations.ts";
export * from "./media_files.ts";
export * from "./early_deletes.ts";
export * from "./collections.ts";
export * from "./settings.ts";
export * from "./email_subscriptions.ts";
export * from "./async_refreshes.ts";
export * from "./interaction_requests.ts";
