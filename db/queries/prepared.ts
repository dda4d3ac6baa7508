/**
 * Hot read queries built once per database handle and query shape.
 *
 * drizzle turns a query builder into SQL text on every call; for a query
 * with the visibility filter or all the columns of `statuses` and `accounts`
 * that costs more CPU than the database spends running it (it was the top
 * item of the server's CPU profile). A hot reader builds its query once with
 * `sql.placeholder(…)` for every value and calls `.execute({ … })` with the
 * values: the text is reused, and on PostgreSQL so is the server-side
 * prepared statement (postgres.js caches them per connection by text).
 *
 * Keyed by the executor object (the Db, or one transaction), so a query
 * never runs on another connection's handle, and a finished transaction's
 * queries go with it.
 */
import type { Executor } from "../connection.ts";

const built = new WeakMap<object, Map<string, unknown>>();

/** The query `build` makes for `db` under `key`, built on first use. */
export function prepared<T>(db: Executor, key: string, build: () => T): T {
  let queries = built.get(db);
  if (!queries) {
    queries = new Map();
    built.set(db, queries);
  }
  let query = queries.get(key) as T | undefined;
  if (query === undefined) {
    query = build();
    queries.set(key, query);
  }
  return query;
}
