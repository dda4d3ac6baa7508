/**
 * The statement that ends a handled message of the queue (sql_queue.ts's
 * finish): deletes it, writes Fedify's mark of the activity with it
 * (inbox_marks.ts) and, given the message's ordering key, readies the next
 * message of the key and claims it for this worker when it is due and no
 * older message waits.
 *
 * It runs once per handled message (every inbound activity), so it is a
 * prepared statement whose text is built once per process and variant (with
 * or without a mark and a key, and the marks' table): building it with its
 * values cost about 10 µs of CPU each time (docs/benchmarks.md).
 */
import { sql } from "drizzle-orm";
import type { PreparedStatement } from "../../db/queries/queue_rows.ts";
import type { HeldMark, InboxMarks } from "./inbox_marks.ts";

/** The message that ends, and what its statement does besides the delete. */
export interface Finished {
  id: number;
  /** Its ordering key, to ready (and claim) the next message of; null for none. */
  key: string | null;
  /** The lease of a next message claimed. */
  leaseMs: number;
  /** Fedify's mark to write with the delete. */
  mark?: HeldMark | null;
  /** The marks, when the queue's statements may name their table; the claimed message's is read. */
  marks: InboxMarks | null;
}

/**
 * The statement for `f`: without a key its rows say nothing; with one, a
 * row `{ id, message, claimed, marked }` for a next message readied.
 */
export function finishStatement(f: Finished): PreparedStatement {
  const marked = f.mark && f.marks ? f.marks : null;
  const variant = `${marked?.table ?? "-"}:${f.marks?.table ?? "-"}`;
  const values = {
    id: f.id,
    key: f.key,
    lease_ms: f.leaseMs,
    ...(marked && marked.markValues(f.mark!)),
  };
  const id = sql.placeholder("id");
  const marking = () => marked ? sql`, marking AS (${marked.markSql()})` : sql``;
  if (f.key == null) {
    return {
      name: `queue_finish:${variant}`,
      build: () =>
        sql`WITH gone AS (DELETE FROM federation_queue WHERE id = ${id}
          RETURNING id)${marking()} SELECT 1`,
      values,
    };
  }
  const key = sql.placeholder("key");
  const marks = f.marks;
  return {
    name: `queue_hand_off:${variant}`,
    build: () =>
      sql`
      WITH gone AS (DELETE FROM federation_queue WHERE id = ${id} RETURNING id)${marking()}
      UPDATE federation_queue q SET ready = true, locked_until = CASE
        WHEN q.run_at <= now() AND NOT EXISTS (SELECT 1 FROM federation_queue o
          WHERE o.ready AND (o.run_at, o.id) < (q.run_at, q.id) AND o.id <> ${id}
            AND (o.locked_until IS NULL OR o.locked_until < now()))
        THEN now() + ${sql.placeholder("lease_ms")} * interval '1 millisecond' END
      WHERE q.id = (SELECT p.id FROM federation_queue p
          WHERE p.ordering_key = ${key} AND p.id <> ${id} ORDER BY p.id LIMIT 1)
        AND NOT q.ready
        AND NOT EXISTS (SELECT 1 FROM federation_queue r
          WHERE r.ordering_key = ${key} AND r.ready AND r.id <> ${id})
        -- After the delete: the finished message's ready entry is gone first.
        AND EXISTS (SELECT 1 FROM gone)
      RETURNING q.id, q.message, q.locked_until IS NOT NULL AS claimed,
        ${marks ? marks.markedOf(sql`q.message`) : sql`NULL::boolean`} AS marked`,
    values,
  };
}
