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
import type { SQL } from "drizzle-orm";
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

/** What a prepared drizzle query is made of, captured from its first build. */
interface QueryShape {
  query: { sql: string; params: unknown[] };
  fields: unknown;
  arrayMode: boolean;
  mapper: unknown;
  joins: unknown;
}

/** The drizzle internals a prepared query is rebuilt from (both drivers have them). */
interface PreparedInternals {
  queryString: string;
  params: unknown[];
  fields: unknown;
  _isResponseInArrayMode: boolean;
  customResultMapper: unknown;
  joinsNotNullableMap?: unknown;
}

const shapes = new Map<string, QueryShape>();

/**
 * A drizzle query builder with `sql.placeholder(…)` for every value, built
 * once per process and prepared on `db` (the Db or a transaction). It is
 * {@link prepared} for queries that also run inside transactions: a new
 * transaction gets a new handle, so `prepared` would build the query again
 * for each one, and building (drizzle walks every column and chunk) was
 * most of the server's CPU when posting. The first build's SQL text,
 * parameter slots and result mapping are kept, and each handle gets a
 * prepared query made from them by its own session, exactly as drizzle's
 * `.prepare()` would make it.
 */
export function preparedQuery<Q extends { prepare(name: string): unknown }>(
  db: Executor,
  key: string,
  build: (db: Executor) => Q,
): ReturnType<Q["prepare"]> {
  return prepared(db, `query:${key}`, () => {
    const shape = shapes.get(key);
    if (!shape) {
      const query = build(db).prepare(key) as PreparedInternals;
      shapes.set(key, {
        query: { sql: query.queryString, params: query.params },
        fields: query.fields,
        arrayMode: query._isResponseInArrayMode,
        mapper: query.customResultMapper,
        joins: query.joinsNotNullableMap,
      });
      return query;
    }
    const session = (db as unknown as {
      session: {
        prepareQuery(
          query: QueryShape["query"],
          fields: unknown,
          name: string,
          arrayMode: boolean,
          mapper: unknown,
        ): PreparedInternals;
      };
    }).session;
    const query = session.prepareQuery(
      shape.query,
      shape.fields,
      key,
      shape.arrayMode,
      shape.mapper,
    );
    if (shape.joins !== undefined) query.joinsNotNullableMap = shape.joins;
    return query;
  }) as ReturnType<Q["prepare"]>;
}

/** The SQL text and parameter slots of raw statements, built once per process. */
const builtRaw = new Map<string, unknown>();

interface RawSession {
  session: {
    prepareQuery(query: unknown, fields: undefined, name: string, arrayMode: boolean): {
      execute(values?: Record<string, unknown>): Promise<unknown>;
    };
  };
  dialect: { sqlToQuery(sql: SQL): unknown };
}

/**
 * Runs a raw statement (`sql` with `sql.placeholder(…)` for every value) as
 * a named prepared statement: its text is built once per process and, on
 * PostgreSQL, parsed and planned once per connection. `db.execute(sql)` would
 * send it unnamed, so a big INSERT … SELECT (the fan-out) was planned anew
 * on every post, which cost more than running it.
 */
export async function executePrepared<T = Record<string, unknown>>(
  db: Executor,
  key: string,
  build: () => SQL,
  values: Record<string, unknown>,
): Promise<T[]> {
  const raw = db as unknown as RawSession;
  let query = builtRaw.get(key);
  if (query === undefined) {
    query = raw.dialect.sqlToQuery(build());
    builtRaw.set(key, query);
  }
  const statement = prepared(
    db,
    `raw:${key}`,
    () => raw.session.prepareQuery(query, undefined, key, false),
  );
  // postgres.js answers the rows (an array); PGlite a result with `rows`.
  const result = await statement.execute(values) as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}
