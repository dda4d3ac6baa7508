/**
 * "This process just wrote": a signal from whoever writes (API requests,
 * queued jobs) to whoever caches what was written (the entity cache,
 * api/entities/entity_cache.ts), so that a read right after a write waits
 * for that write's invalidation. It lives here, below both, so that
 * federation/ and actors/ can signal without importing the API layer.
 */
import type { Database } from "./connection.ts";

const listeners = new WeakMap<Database, () => void>();

/** Registers what a write on `database` by this process should do (one listener per database). */
export function onWrite(database: Database, listener: () => void): void {
  listeners.set(database, listener);
}

/** Signals a write by this process on `database`. */
export function markWrite(database: Database): void {
  listeners.get(database)?.();
}
