/**
 * Timing of SQL statements for the metrics (db.client.operation.duration and
 * the pool gauges), on both drivers without a second code path per query.
 *
 * drizzle hands every prepared query the logger of the database it was made
 * from (transactions included), so the observer rides on that logger: one
 * QueryTimer per Database, and the prepared-query classes of both drivers
 * wrapped once to time `execute` and `all` when their logger carries an
 * observer. With no observer set the cost is one property read.
 */
import type { Logger } from "drizzle-orm/logger";
import { PostgresJsPreparedQuery } from "drizzle-orm/postgres-js";
import { PglitePreparedQuery } from "drizzle-orm/pglite";

export interface QueryObserver {
  /** One statement finished: its first keyword, how long it took, whether it failed. */
  record(operation: string, seconds: number, ok: boolean): void;
  /** A statement started (+1) or finished (-1). */
  inFlight(delta: 1 | -1): void;
}

/** drizzle's logger for one database, carrying that database's observer (if any). */
export class QueryTimer implements Logger {
  observer: QueryObserver | null = null;
  logQuery(): void {}
}

/** SELECT, INSERT, WITH…: what the statement does, for the metric's attribute. */
export function operationName(sql: string): string {
  const word = /^\s*([a-zA-Z]+)/.exec(sql)?.[1];
  return word ? word.toUpperCase() : "OTHER";
}

type Timed = {
  logger?: unknown;
  queryString?: string;
  [method: string]: unknown;
};

function wrap(proto: Timed, method: "execute" | "all"): void {
  const original = proto[method] as (this: Timed, ...args: unknown[]) => Promise<unknown>;
  proto[method] = function (this: Timed, ...args: unknown[]) {
    const observer = this.logger instanceof QueryTimer ? this.logger.observer : null;
    if (!observer) return original.apply(this, args);
    return timed(observer, this.queryString ?? "", () => original.apply(this, args));
  };
}

async function timed<T>(observer: QueryObserver, sql: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  observer.inFlight(1);
  let ok = false;
  try {
    const result = await run();
    ok = true;
    return result;
  } finally {
    observer.inFlight(-1);
    observer.record(operationName(sql), (performance.now() - started) / 1000, ok);
  }
}

/** Wraps both drivers' prepared queries, once per process (a library patch, like prepareEveryQuery). */
export function timeQueries(): void {
  for (const cls of [PostgresJsPreparedQuery, PglitePreparedQuery]) {
    const proto = cls.prototype as unknown as Timed & { [wrapped]?: true };
    if (proto[wrapped]) continue;
    wrap(proto, "execute");
    wrap(proto, "all");
    proto[wrapped] = true;
  }
}
const wrapped = Symbol("rookery.timeQueries");
