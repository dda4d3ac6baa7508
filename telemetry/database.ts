/**
 * Database figures: statement timing (db/query_observer.ts calls the
 * observer made here) and the pool gauges.
 */
import type { GaugeSource, Instruments } from "./instruments.ts";

/** What db/query_observer.ts's QueryObserver asks for (structurally: telemetry/ does not import db/). */
export interface DatabaseObserver {
  record(operation: string, seconds: number, ok: boolean): void;
  inFlight(delta: 1 | -1): void;
  /** db.client.connection.* gauges. */
  gauges(): GaugeSource[];
}

/**
 * `system` is "postgresql" or "pglite"; `poolSize` the connections the pool
 * may open (1 on PGlite). Connections in use are approximated by the
 * statements in flight, which is what holds a connection outside transactions.
 */
export function databaseObserver(
  instruments: Instruments,
  system: string,
  poolSize: number,
): DatabaseObserver {
  let running = 0;
  return {
    record(operation, seconds, ok) {
      instruments.dbDuration.record(seconds, {
        "db.system": system,
        "db.operation.name": operation,
        ...(ok ? {} : { "error.type": "query_failed" }),
      });
    },
    inFlight(delta) {
      running += delta;
    },
    gauges: () => [{
      name: "db.client.connection.count",
      description: "Database connections in use and idle.",
      read: () => {
        const used = Math.min(running, poolSize);
        return [[used, { state: "used" }], [poolSize - used, { state: "idle" }]];
      },
    }, {
      name: "db.client.connection.max",
      description: "Connections the pool may open (1 on the embedded database).",
      read: () => [[poolSize]],
    }, {
      name: "db.client.connection.pending_requests",
      description: "Statements waiting for a connection.",
      read: () => [[Math.max(0, running - poolSize)]],
    }],
  };
}
