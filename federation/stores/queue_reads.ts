/**
 * Statements of the queue (sql_queue.ts) over its waiting rows: readying the
 * next message of finished keys, and how long until a lane's next message
 * falls due.
 */
import { type SQL, sql } from "drizzle-orm";

/** The rows of the general lane (inbound activities and jobs), as `q`. */
export const GENERAL_ROWS = sql`q.ready AND q.host IS NULL`;

/** A SELECT of the milliseconds until one of `rows` (as `q`) may be claimed (NULL: none). */
export function nextRunMs(rows: SQL): SQL {
  return sql`SELECT (extract(epoch FROM min(greatest(run_at, coalesce(locked_until, run_at)) - now()))
      * 1000)::float8 AS ms
    FROM federation_queue q WHERE ${rows}`;
}

/**
 * The UPDATE that readies the oldest message of each of `keys` (a CTE
 * body): only one that is not ready, of a key that has none ready, so the
 * unique index (one ready message per key) is never hit.
 */
export function readyNextOf(keys: string[]) {
  return sql`UPDATE federation_queue q SET ready = true
    WHERE q.id IN (
      SELECT (SELECT p.id FROM federation_queue p WHERE p.ordering_key = k ORDER BY p.id LIMIT 1)
      FROM jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb) AS k)
      AND NOT q.ready
      AND NOT EXISTS (SELECT 1 FROM federation_queue r
        WHERE r.ordering_key = q.ordering_key AND r.ready)
    RETURNING q.id`;
}
