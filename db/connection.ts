/**
 * Opens the database: embedded PGlite under the data directory, or
 * PostgreSQL through postgres.js when a URL is given. Both are wrapped in the
 * same drizzle interface, so every query in the product is written once.
 */
import { PGlite } from "@electric-sql/pglite";
import { type SQL } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres, PostgresJsSession } from "drizzle-orm/postgres-js";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import postgres from "postgres";
import { preparedClient } from "./pglite_prepared.ts";
import { SizedNodeFS } from "./pglite_fs.ts";
import { migrate } from "./migrate.ts";
import { isEmptyDirectory, seedCluster } from "./pglite_template.ts";
import { setProcessTag } from "./ids.ts";
import { QueryTimer, timeQueries } from "./query_observer.ts";
import { guardTransactions } from "./postgres_transactions.ts";

/**
 * Without drizzle's relational queries (`db.query.…`): drizzle builds one
 * relational builder per table of the schema for every handle it makes, so
 * every transaction paid for a hundred of them (20 to 40 µs of CPU, most
 * of the per-transaction cost on PostgreSQL; docs/benchmarks.md). Queries
 * are written with the query builder.
 */
export type Db = PgDatabase<PgQueryResultHKT>;
/** A transaction handle; commands accept either it or the Db. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type Executor = Db | Tx;

/**
 * Whether statements issued together on `executor` (`Promise.all`) share a
 * round trip: on PostgreSQL, postgres.js writes what a connection was given
 * in one turn of the event loop at once; PGlite runs them one after another.
 */
export function statementsPipelined(executor: Executor): boolean {
  return (executor as unknown as { session?: unknown }).session instanceof PostgresJsSession;
}

export interface Database {
  readonly kind: "pglite" | "postgres";
  readonly db: Db;
  /** Runs raw SQL and returns its rows, whatever the driver. */
  rows<T = Record<string, unknown>>(query: SQL, executor?: Executor): Promise<T[]>;
  /** The postgres.js client, on PostgreSQL (for @fedify/postgres and LISTEN). */
  readonly pg?: postgres.Sql;
  /** The PGlite instance, in embedded mode. */
  readonly pglite?: PGlite;
  /** Statement timing for the metrics: its `observer` is set by the process (db/query_observer.ts). */
  readonly queries: QueryTimer;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** postgres:// URL; absent means PGlite. */
  databaseUrl: string | null;
  /** PGlite data directory, or "memory://" for a throwaway database. */
  pgliteDir: string;
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /** Connection pool size on PostgreSQL. */
  poolSize?: number;
  /**
   * A PGlite data directory dump to start from (see {@link dumpTemplate}).
   * Creating a PGlite cluster from scratch takes seconds; tests load a
   * migrated template instead.
   */
  template?: Blob;
  /**
   * Where a migrated cluster for empty data directories is kept (see
   * db/pglite_template.ts); absent or null: an empty directory is created
   * and migrated in place.
   */
  templateCache?: string | null;
}

/**
 * PostgreSQL settings for the embedded database, after PGlite's own start
 * parameters (which include `-F`: fsync off; PGlite's file layer ignores
 * fsync and fdatasync anyway, so a commit is written to the operating system
 * but not forced to disk: it survives the process dying, not the machine).
 */
const PGLITE_SETTINGS = [
  // As on PostgreSQL below: prepared statements (db/pglite_prepared.ts)
  // keep their generic plan instead of being planned again at each call.
  "-c",
  "plan_cache_mode=force_generic_plan",
  // PGlite's default of 128 MB is allocated and zeroed inside the WASM
  // memory at start, so it all counts in the process's RSS. With 32 MB the
  // server's RSS after the benchmark fell from ~420 to ~320 MiB at the same
  // CPU per request (100,000 statuses); with 16 MB the idle server's fell by
  // another 20–30 MiB, home and posting CPU unchanged (8 MB cost posting
  // 20–30% more CPU). Pages not in these buffers are read from the
  // operating system's cache.
  "-c",
  "shared_buffers=16MB",
];

/** Opens and migrates the database. */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  let database: Database;
  timeQueries();
  const queries = new QueryTimer();
  if (options.databaseUrl) {
    prepareEveryQuery();
    guardTransactions();
    const pg = postgres(options.databaseUrl, {
      max: options.poolSize ?? 10,
      onnotice: () => {},
      // Our hot queries are prepared once per connection. With the default
      // plan cache mode PostgreSQL keeps planning several of them afresh at
      // every bind (the home timeline query took ~2.5 ms to plan and 0.3 ms
      // to run); their generic plans are as good, so always reuse them.
      connection: { plan_cache_mode: "force_generic_plan" },
    });
    const db = drizzlePostgres(pg, { logger: queries }) as unknown as Db;
    database = {
      kind: "postgres",
      db,
      pg,
      queries,
      async rows<T>(query: SQL, executor: Executor = db) {
        const result = await executor.execute(query);
        return Array.from(result as unknown as Iterable<T>);
      },
      async close() {
        await pg.end({ timeout: 5 });
      },
    };
  } else {
    database = await openPglite(options, queries);
  }
  try {
    if (options.migrate !== false) await migrate(database);
    const [row] = await database.rows<{ tag: string | number }>(
      (await import("drizzle-orm")).sql`SELECT nextval('process_tags') AS tag`,
    );
    setProcessTag(Number(row.tag));
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  return database;
}

/** The embedded database, a fresh data directory first seeded from the template cache. */
async function openPglite(options: OpenOptions, queries: QueryTimer): Promise<Database> {
  const dir = options.pgliteDir;
  if (!dir.startsWith("memory://")) {
    if (options.templateCache && !options.template && await isEmptyDirectory(dir)) {
      await seedCluster(dir, options.templateCache, migratedClusterTar);
    }
    await Deno.mkdir(dir, { recursive: true });
  }
  // int8 stays text, as postgres.js returns it: ids are strings everywhere.
  const pglite = await PGlite.create(dir, {
    // A data directory's file sizes are remembered (pglite_fs.ts).
    ...(dir.startsWith("memory://") ? {} : { fs: new SizedNodeFS(dir) }),
    parsers: { 20: (value: string) => value },
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
    ...(options.template ? { loadDataDir: options.template } : {}),
  });
  const client = preparedClient(pglite) as unknown as PGlite;
  const db = drizzlePglite({ client, logger: queries }) as unknown as Db;
  return {
    kind: "pglite",
    db,
    pglite,
    queries,
    async rows<T>(query: SQL, executor: Executor = db) {
      const result = await executor.execute(query) as unknown as { rows: T[] };
      return result.rows;
    },
    async close() {
      await pglite.close();
    },
  };
}

/**
 * A migrated cluster made in memory (initdb takes half the time there that
 * it takes through the file layer), checkpointed so that opening a copy has
 * nothing to replay, as the tar PGlite dumps.
 */
async function migratedClusterTar(): Promise<Uint8Array> {
  const memory = await openPglite({ databaseUrl: null, pgliteDir: "memory://" }, new QueryTimer());
  try {
    await migrate(memory);
    await memory.pglite!.exec("CHECKPOINT");
    return new Uint8Array(await (await memory.pglite!.dumpDataDir("none")).arrayBuffer());
  } finally {
    await memory.close();
  }
}

/**
 * Makes every drizzle query on PostgreSQL a named prepared statement.
 *
 * drizzle-orm's postgres.js session asks for a prepared statement only when
 * a query is built with `.prepare(name)`; every other query goes out
 * unnamed, and postgres.js then sends Parse and Describe, waits for the
 * parameter types, and sends Bind and Execute: two round trips, a parse and
 * a fresh plan every time. Posting a status runs about twenty such queries,
 * so this was a large part of its cost on both sides. Named, a query is
 * parsed and planned once per connection (postgres.js keeps them by text and
 * re-prepares after a schema change) and costs one round trip after that.
 * The patch is on the session class because drizzle makes a new session
 * object for each transaction.
 */
function prepareEveryQuery(): void {
  const proto = PostgresJsSession.prototype as unknown as {
    prepareQuery(...args: unknown[]): unknown;
    [patched]?: true;
  };
  if (proto[patched]) return;
  const original = proto.prepareQuery;
  proto.prepareQuery = function (query, fields, name, ...rest) {
    // The name itself is unused by the driver; it only switches preparing on.
    return original.call(this, query, fields, name ?? "auto", ...rest);
  };
  proto[patched] = true;
}
const patched = Symbol("rookery.prepareEveryQuery");

/** Dumps a migrated PGlite database, to be passed as `template` later. */
export async function dumpTemplate(database: Database): Promise<Blob> {
  if (!database.pglite) throw new Error("Only PGlite databases can be dumped as templates");
  return await database.pglite.dumpDataDir("none");
}
