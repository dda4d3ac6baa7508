/**
 * Writing a message into the durable queue (the `federation_queue` table):
 * the one statement both writers use, Fedify's queue
 * (federation/stores/sql_queue.ts, which also claims and runs messages) and
 * commands recording a background job in their own transaction
 * (actors/outbox/jobs.ts).
 *
 * Messages that share an ordering key run one at a time, oldest first: only
 * the oldest message of a key is `ready`, and a unique index keeps one ready
 * message per key. A message is queued ready when its key has nothing
 * queued, read under a KEY SHARE lock so that a message finished at that
 * instant is either seen gone, or deleted only once this one is committed
 * (sql_queue.ts's claim then readies it); when another writer queued the
 * key's first message at this very instant, this one goes behind it.
 */
import { type SQL, sql } from "drizzle-orm";

/** The channel a NOTIFY wakes idle workers on when a ready message is queued. */
export const QUEUE_CHANNEL = "rookery_queue";

/** Where a message goes in the queue. */
export interface QueuePlace {
  /** Messages of one key run one at a time, in order. */
  orderingKey?: string | null;
  /** Not claimed before this instant. */
  runAt: Date;
  /**
   * Wake idle workers (NOTIFY on {@link QUEUE_CHANNEL}, sent at commit) when
   * a message is ready now.
   */
  wake?: boolean;
  /**
   * With an ordering key: a message queued ready (nothing of its key before
   * it) is claimed by the writer for this long, in the same statement (a
   * worker handing it to itself: federation/stores/sql_queue.ts).
   */
  claimForMs?: number;
}

/**
 * The statement that queues `messages` (several only without an ordering
 * key); its rows are `{ ready }`, one per message, and with a key also the
 * row's `id` and whether it was `claimed` ({@link QueuePlace.claimForMs}).
 */
export function queueMessages(messages: readonly unknown[], place: QueuePlace): SQL {
  const runAt = place.runAt.toISOString();
  const key = place.orderingKey ?? null;
  let queued: SQL;
  if (key == null) {
    const values = messages.map((m) =>
      sql`(${JSON.stringify(m)}::jsonb, ${runAt}::timestamptz, true)`
    );
    queued = sql`queued AS (INSERT INTO federation_queue (message, run_at, ready)
      VALUES ${sql.join(values, sql`, `)} RETURNING ready)`;
  } else {
    if (messages.length !== 1) throw new Error("One message at a time per ordering key");
    const json = JSON.stringify(messages[0]);
    const claimMs = place.claimForMs ?? null;
    queued = sql`head AS (
        INSERT INTO federation_queue (message, ordering_key, run_at, ready, locked_until)
        SELECT ${json}::jsonb, ${key}::text, ${runAt}::timestamptz, f.free, CASE
          WHEN f.free AND ${claimMs}::int IS NOT NULL
          THEN now() + ${claimMs}::int * interval '1 millisecond' END
        FROM (SELECT NOT EXISTS (
          SELECT 1 FROM federation_queue WHERE ordering_key = ${key} FOR KEY SHARE) AS free) f
        ON CONFLICT (ordering_key) WHERE ready AND ordering_key IS NOT NULL DO NOTHING
        RETURNING id, ready, locked_until IS NOT NULL AS claimed),
      behind AS (
        INSERT INTO federation_queue (message, ordering_key, run_at, ready)
        SELECT ${json}::jsonb, ${key}::text, ${runAt}::timestamptz, false
        WHERE NOT EXISTS (SELECT 1 FROM head)
        RETURNING id, ready, false AS claimed),
      queued AS (SELECT id, ready, claimed FROM head UNION ALL SELECT id, ready, claimed FROM behind)`;
  }
  if (!place.wake || place.runAt.getTime() > Date.now()) {
    return sql`WITH ${queued} SELECT * FROM queued`;
  }
  // pg_notify runs once per ready row; idle workers wake once per commit anyway.
  return sql`WITH ${queued} SELECT ready,
    (SELECT count(*) FROM (SELECT pg_notify(${QUEUE_CHANNEL}, '') FROM queued WHERE ready) n)
      AS woken
    FROM queued`;
}
