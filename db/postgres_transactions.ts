/**
 * Keeps a transaction whose PostgreSQL connection was lost from writing to
 * it again.
 *
 * postgres.js 3.4.9 (`sql.begin`) answers a failed transaction callback with
 * a ROLLBACK on the same connection, and runs whatever the callback still
 * sends there. When the backend was terminated (a restart, a failover,
 * pg_terminate_backend, idle_in_transaction_session_timeout), that
 * connection's socket is already gone: the write is deferred with
 * setImmediate and then throws on the null socket outside any promise, which
 * ends the process (porsager/postgres#1154, #1208). Had the pool meanwhile
 * reconnected that connection for another query, the statements would run
 * outside the transaction instead.
 *
 * So once a statement of a transaction fails with a lost connection, or the
 * transaction itself was rejected (postgres.js rejects it when its
 * connection closes), nothing more is sent on it: later statements fail at
 * once, and the callback's failure is kept from postgres.js (its ROLLBACK is
 * moot: the server rolled back when the backend ended). The transaction is
 * rejected by postgres.js when the connection's close is seen, and the
 * caller gets that error like any other database error.
 */
import { PostgresJsSession } from "drizzle-orm/postgres-js";
import type postgres from "postgres";

/** What one transaction knows of its connection. */
interface Connection {
  /** Set once the connection is known to be lost. */
  lost: unknown;
}

/** postgres.js's own codes for a connection gone, and the socket's. */
const LOST_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "ECONNRESET",
  "EPIPE",
]);

/**
 * Whether `error` (or what it wraps, as drizzle's query errors do) means the
 * database connection is gone: a FATAL error ends the backend.
 */
export function isConnectionLoss(error: unknown): boolean {
  for (let depth = 0; error && typeof error === "object" && depth < 4; depth++) {
    const { code, severity, cause } = error as {
      code?: unknown;
      severity?: unknown;
      cause?: unknown;
    };
    if (typeof code === "string" && LOST_CODES.has(code)) return true;
    if (severity === "FATAL" || severity === "PANIC") return true;
    error = cause;
  }
  return false;
}

/**
 * Keeps a lost PostgreSQL connection from ending the process: postgres.js
 * 3.4.9 can still reject a promise nobody holds when a backend is
 * terminated under it (a query's rejection on the closed connection, or a
 * write to its ended socket), which Deno treats as fatal. Such a rejection
 * is only logged (`onLoss`); the requests it cost already failed with 503
 * and the pool reconnects. Any other unhandled rejection still ends the
 * process. Returns what removes the listener.
 */
export function surviveLostConnections(onLoss: (reason: unknown) => void): () => void {
  const listener = (event: PromiseRejectionEvent) => {
    if (!isConnectionLoss(event.reason)) return;
    event.preventDefault();
    onLoss(event.reason);
  };
  globalThis.addEventListener("unhandledrejection", listener);
  return () => globalThis.removeEventListener("unhandledrejection", listener);
}

/** Patches drizzle's postgres.js session, once per process, so its transactions are guarded. */
export function guardTransactions(): void {
  const proto = PostgresJsSession.prototype as unknown as {
    transaction(...args: unknown[]): unknown;
    client: postgres.Sql;
    [patched]?: true;
  };
  if (proto[patched]) return;
  const original = proto.transaction;
  proto.transaction = function (this: typeof proto, ...args: unknown[]) {
    const self = Object.create(this, { client: { value: guardedPool(this.client) } });
    return original.apply(self, args);
  };
  proto[patched] = true;
}
const patched = Symbol("rookery.guardTransactions");

/** The pool, its `begin` guarded. */
function guardedPool(pool: postgres.Sql): postgres.Sql {
  return new Proxy(pool, {
    get(target, key, receiver) {
      if (key !== "begin") return Reflect.get(target, key, receiver);
      return (...args: unknown[]) => {
        const fn = args.pop() as (sql: postgres.Sql) => unknown;
        const connection: Connection = { lost: null };
        const begin = target.begin as (...args: unknown[]) => Promise<unknown>;
        return begin.call(
          target,
          ...args,
          (scope: postgres.Sql) =>
            unlessLost(() => fn(guardedScope(scope, connection)), connection),
        ).catch((error: unknown) => {
          connection.lost ??= error;
          throw error;
        });
      };
    },
  });
}

/** A transaction's (or savepoint's) statements, refused once the connection is lost. */
function guardedScope(scope: postgres.Sql, connection: Connection): postgres.Sql {
  return new Proxy(scope, {
    get(target, key, receiver) {
      if (key === "unsafe") {
        return (...args: Parameters<postgres.Sql["unsafe"]>) => {
          if (connection.lost) return refused(connection.lost);
          const query = target.unsafe(...args);
          query.catch((error: unknown) => {
            if (isConnectionLoss(error)) connection.lost ??= error;
          });
          return query;
        };
      }
      if (key === "savepoint") {
        return (fn: (sql: postgres.Sql) => unknown) => {
          if (connection.lost) return Promise.reject(connection.lost);
          const savepoint = (target as unknown as { savepoint: (fn: unknown) => unknown })
            .savepoint;
          return savepoint.call(
            target,
            (inner: postgres.Sql) =>
              unlessLost(() => fn(guardedScope(inner, connection)), connection),
          );
        };
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

/**
 * Runs a transaction's callback; its failure is passed on to postgres.js
 * (which then rolls back) unless the connection is lost: then it never
 * settles, and postgres.js rejects the transaction when the connection closes.
 */
function unlessLost(run: () => unknown, connection: Connection): Promise<unknown> {
  return new Promise((resolve, reject) => {
    Promise.resolve().then(run).then(resolve, (error) => {
      if (isConnectionLoss(error)) connection.lost ??= error;
      if (!connection.lost) reject(error);
    });
  });
}

/** A statement refused without being sent, shaped as drizzle uses postgres.js's queries. */
function refused(error: unknown) {
  const query = Promise.reject(error);
  return Object.assign(query, { values: () => query });
}
