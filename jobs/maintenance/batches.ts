/**
 * What the maintenance jobs (remote media cache, orphan statuses) share:
 * their options, the raw-statement row helper and the cutoff.
 *
 * The jobs walk a table in primary-key order, a bounded batch per
 * transaction, and lock the rows they change with FOR UPDATE SKIP LOCKED:
 * a row a request is busy with is skipped (the next run takes it), and no
 * transaction holds more than one batch of locks, so a running server on
 * PostgreSQL is never blocked for long. On PGlite the server runs the job
 * itself (admin socket) between its own statements.
 */

/** Rows per transaction. */
export const BATCH_SIZE = 500;

/** Options every maintenance job takes. */
export interface JobOptions {
  /** Count what would go, change nothing. */
  dryRun?: boolean;
  /** Rows per transaction (tests use small batches to cross batch edges). */
  batchSize?: number;
  /** Rows examined so far out of a total (for a progress bar). */
  onProgress?: (examined: number, total: number) => void;
}

/** The rows of a raw statement: postgres.js answers an array, PGlite a result with `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? result as T[] : (result as { rows: T[] }).rows;
}

/** The cutoff date `days` days before `now`; throws a RangeError for a bad count. */
export function daysAgo(days: number, now = new Date()): Date {
  if (!Number.isInteger(days) || days < 0 || days > 36_500) {
    throw new RangeError("days must be a whole number from 0 to 36500");
  }
  return new Date(now.getTime() - days * 86_400_000);
}
