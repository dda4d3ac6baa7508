/**
 * PGlite with named prepared statements: the client handed to drizzle on the
 * embedded database.
 *
 * `PGlite.query` sends every statement unnamed (Parse, Describe, Bind,
 * Describe, Execute, Sync, each a separate call into the WASM module), so
 * PostgreSQL parses and plans it afresh each time. Planning dominated the
 * cheap reads: the home timeline query took about 5 ms to plan and 1.2 ms to
 * run. Here each data statement (SELECT, INSERT, UPDATE, DELETE, WITH) is
 * parsed once under a name, keyed by its SQL text, and later runs as one
 * Bind/Execute/Sync call (written by db/pglite_bind.ts); with `plan_cache_mode =
 * force_generic_plan` (set by db/connection.ts) its plan is made once too.
 * This is what postgres.js does on PostgreSQL (see prepareEveryQuery there).
 * The reply of an execution is read from its raw bytes where it holds only
 * rows (db/pglite_replies.ts), not by PGlite's protocol parser.
 *
 * PGlite is a single connection, so there is one statement cache for the
 * process. It is bounded (queries with IN lists of varying length have many
 * texts); statements that fall out are closed before the next statement
 * outside a transaction. Everything else (DDL in migrations, SET, SAVEPOINT,
 * queries with PGlite-specific options) goes through `PGlite.query`
 * unchanged. Prepared statements survive a rolled-back transaction, and
 * PostgreSQL re-plans them itself after DDL on the tables they read; a
 * statement whose result columns changed is dropped and, outside a
 * transaction, prepared again.
 *
 * The locking mirrors `PGlite.query`: a statement outside a transaction waits
 * for the transaction lock (so it never runs inside someone else's
 * transaction), then takes the query lock; a statement inside one takes the
 * query lock only. Those locks and `execProtocolStream` (which also delivers
 * NOTIFY payloads to listeners) are PGlite internals, typed below; the
 * version is pinned in deno.json and the tests run every query through here.
 */
import {
  messages,
  parse,
  type PGlite,
  protocol,
  type QueryOptions,
  type Results,
  type Transaction,
} from "@electric-sql/pglite";
import { bindExecuteSync } from "./pglite_bind.ts";
import { mirrorListeners, parseReply, type RawReply, readReply } from "./pglite_replies.ts";

/** How many prepared statements are kept; each holds a parse tree and a plan. */
const MAX_STATEMENTS = 256;

/** The PGlite internals used here (present in the pinned 0.5.x). */
interface PGliteInternals {
  _checkReady(): Promise<void>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
  execProtocolStream(
    message: Uint8Array,
    options: { syncToFs: boolean },
  ): Promise<messages.BackendMessage[]>;
  /** Runs `message`, handing each chunk of the reply (a view PGlite reuses) to `onRawData` only. */
  execProtocolRawStream(
    message: Uint8Array,
    options: { syncToFs: boolean; onRawData: (chunk: Uint8Array) => void },
  ): Promise<void>;
  syncToFs(): Promise<void>;
  serializers: Record<number, (value: unknown) => string>;
  parsers: Record<number, (value: string, typeId?: number) => unknown>;
}

/** The part of the PGlite interface that drizzle's PGlite session calls. */
export interface PreparedClient {
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
}

interface Statement {
  name: string;
  paramTypes: number[];
  /** The result columns (none for a statement without RETURNING). */
  fields: { name: string; dataTypeID: number }[];
}

/** Data statements, the only ones worth a plan (leading comments aside). */
const PREPARABLE = /^(?:\s|--[^\n]*\n|\/\*[^]*?\*\/|\()*(select|insert|update|delete|with)\b/i;
/** "cached plan must not change result type": the statement must be re-parsed. */
const RESULT_TYPE_CHANGED = "0A000";

const serialize = protocol.serialize;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * The prepared statements of one PGlite, by SQL text, least recently used
 * first; those that fall out are closed before the next top-level statement.
 */
class StatementCache {
  readonly #pg: PGliteInternals;
  readonly #statements = new Map<string, Statement>();
  /** Names evicted from the cache, closed before the next top-level statement. */
  readonly #toClose: string[] = [];
  #counter = 0;
  /** Delivers a notification read outside PGlite's parser to its listeners. */
  readonly deliver: (notification: messages.NotificationResponseMessage) => void;

  constructor(pg: PGliteInternals, deliver: StatementCache["deliver"]) {
    this.#pg = pg;
    this.deliver = deliver;
  }

  call(message: Uint8Array): Promise<messages.BackendMessage[]> {
    return this.#pg.execProtocolStream(message, { syncToFs: false });
  }

  /**
   * Runs `message` and reads its reply (db/pglite_replies.ts): on the fast
   * path when it holds only rows and their completion; otherwise with
   * PGlite's parser, delivering its notifications and throwing its error as
   * `call` would.
   */
  async execute(message: Uint8Array): Promise<RawReply> {
    const chunks: Uint8Array[] = [];
    await this.#pg.execProtocolRawStream(message, {
      syncToFs: false,
      onRawData: (chunk) => chunks.push(chunk.slice()),
    });
    const bytes = chunks.length === 1 ? chunks[0] : concat(chunks);
    const fast = readReply(bytes);
    if (fast) return fast;
    const reply: RawReply = { rows: [] };
    for (const m of parseReply(bytes)) {
      if (m instanceof messages.DatabaseError) throw m;
      if (m instanceof messages.NotificationResponseMessage) this.deliver(m);
      else if (m instanceof messages.DataRowMessage) reply.rows.push(m.fields);
      else if (m instanceof messages.CommandCompleteMessage) reply.command = m.text;
    }
    return reply;
  }

  /** Closes the statements evicted since the last call (outside a transaction only). */
  async closeEvicted(): Promise<void> {
    if (this.#toClose.length === 0) return;
    const names = this.#toClose.splice(0);
    await this.call(concat([
      ...names.map((name) => serialize.close({ type: "S", name })),
      serialize.sync(),
    ]));
  }

  /** The statement for `text`, prepared now if it is not cached, and marked most recently used. */
  async statementFor(text: string): Promise<Statement> {
    const cached = this.#statements.get(text);
    if (!cached) return await this.#prepare(text);
    this.#statements.delete(text); // to the most recently used end
    this.#statements.set(text, cached);
    return cached;
  }

  /** Forgets a statement whose result columns changed; it is closed later. */
  drop(text: string, statement: Statement): void {
    this.#statements.delete(text);
    this.#toClose.push(statement.name);
  }

  async #prepare(text: string): Promise<Statement> {
    const name = `rookery_${++this.#counter}`;
    const described = await this.call(concat([
      serialize.parse({ name, text }),
      serialize.describe({ type: "S", name }),
      serialize.sync(),
    ]));
    const row = described.find((m) => m.name === "rowDescription") as
      | messages.RowDescriptionMessage
      | undefined;
    const statement = {
      name,
      paramTypes: parse.parseDescribeStatementResults(described),
      fields: row?.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })) ?? [],
    };
    this.#statements.set(text, statement);
    if (this.#statements.size > MAX_STATEMENTS) {
      const [oldest, evicted] = this.#statements.entries().next().value!;
      this.#statements.delete(oldest);
      this.#toClose.push(evicted.name);
    }
    return statement;
  }
}

/** The parameters of one execution as text, by the statement's parameter types. */
function bindValues(
  pg: PGliteInternals,
  statement: Statement,
  params: unknown[],
  options: QueryOptions | undefined,
): (string | null)[] {
  return params.map((value, i) => {
    if (value === null || value === undefined) return null;
    const type = statement.paramTypes[i];
    const serializer = options?.serializers?.[type] ?? pg.serializers[type];
    return serializer ? serializer(value) : String(value);
  });
}

/** Runs `text` as a prepared statement; once more after a result-type change when `retry`. */
async function run<T>(
  pg: PGliteInternals,
  cache: StatementCache,
  query: { text: string; params: unknown[]; options: QueryOptions | undefined },
  retry: boolean,
): Promise<Results<T>> {
  const { text, params, options } = query;
  const statement = await cache.statementFor(text);
  try {
    const reply = await cache.execute(
      bindExecuteSync(statement.name, bindValues(pg, statement, params, options)),
    );
    return toResults<T>(pg, reply, statement.fields, options);
  } catch (error) {
    if ((error as { code?: string }).code === RESULT_TYPE_CHANGED) {
      cache.drop(text, statement);
      if (retry) return await run(pg, cache, query, false);
    }
    throw error;
  }
}

/**
 * The reply to one execution as `PGlite.query` returns it. (PGlite's
 * own parseResults copies its ~150 type parsers into a new object at every
 * call when drizzle passes its few; that was 6% of the CPU of posting.)
 */
function toResults<T>(
  pg: PGliteInternals,
  reply: RawReply,
  fields: Statement["fields"],
  options: QueryOptions | undefined,
): Results<T> {
  const own = options?.parsers;
  const parsers = fields.map(({ dataTypeID }) =>
    own?.[dataTypeID] ?? pg.parsers[dataTypeID] ?? null
  );
  const asArray = options?.rowMode === "array";
  const rows = reply.rows.map((values) => rowOf(values, fields, parsers, asArray));
  let command: string | undefined;
  let rowCount: number | undefined;
  if (reply.command !== undefined) {
    // "SELECT 2", "UPDATE 3", "INSERT 0 5": the last word is the row count.
    const parts = reply.command.split(" ");
    command = parts[0];
    rowCount = parseInt(parts[parts.length - 1], 10);
  }
  const counted = ["INSERT", "UPDATE", "DELETE", "COPY", "MERGE"].includes(command ?? "");
  const result: Results<T> = {
    rows: rows as T[],
    fields,
    affectedRows: counted ? rowCount! : 0,
  };
  if (command !== undefined) {
    result.command = command;
    if (!Number.isNaN(rowCount)) (result as { rowCount?: number }).rowCount = rowCount;
  }
  return result;
}

/** One data row, parsed, as an array or an object keyed by column name. */
function rowOf(
  values: (string | null)[],
  fields: Statement["fields"],
  parsers: (((value: string, typeId?: number) => unknown) | null)[],
  asArray: boolean,
): unknown[] | Record<string, unknown> {
  const row: unknown[] | Record<string, unknown> = asArray ? [] : {};
  for (let i = 0; i < values.length; i++) {
    const text = values[i];
    const parser = parsers[i];
    const value = text === null ? null : parser ? parser(text, fields[i].dataTypeID) : text;
    if (asArray) (row as unknown[]).push(value);
    else (row as Record<string, unknown>)[fields[i].name] = value;
  }
  return row;
}

function usable(text: string, options?: QueryOptions): boolean {
  return !options?.blob && !options?.paramTypes && PREPARABLE.test(text);
}

/** Wraps `pglite` in a client that runs data statements as prepared statements. */
export function preparedClient(pglite: PGlite): PreparedClient {
  const pg = pglite as unknown as PGliteInternals;
  const cache = new StatementCache(pg, mirrorListeners(pglite));

  /** Runs one statement under the query lock; `inTransaction` decides retries and syncing. */
  function exclusive<T>(
    text: string,
    params: unknown[],
    options: QueryOptions | undefined,
    inTransaction: boolean,
  ): Promise<Results<T>> {
    return pg._runExclusiveQuery(async () => {
      if (!inTransaction) await cache.closeEvicted();
      try {
        // A statement in a transaction cannot be retried: its error aborted the transaction.
        return await run<T>(pg, cache, { text, params, options }, !inTransaction);
      } catch (error) {
        Object.assign(error as object, { query: text, params, queryOptions: options });
        throw error;
      } finally {
        if (!inTransaction) await pg.syncToFs();
      }
    });
  }

  return {
    async query<T>(text: string, params: unknown[] = [], options?: QueryOptions) {
      if (!usable(text, options)) return await pglite.query<T>(text, params, options);
      await pg._checkReady();
      return await pg._runExclusiveTransaction(() => exclusive<T>(text, params, options, false));
    },
    transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
      return pglite.transaction((tx) => {
        const wrapped: Transaction = Object.create(tx);
        wrapped.query = async <R>(text: string, params: unknown[] = [], options?: QueryOptions) => {
          if (tx.closed || !usable(text, options)) return await tx.query<R>(text, params, options);
          return await exclusive<R>(text, params, options, true);
        };
        return fn(wrapped);
      });
    },
  };
}
