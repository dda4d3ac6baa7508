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
 *
 * A delivery (Fedify's `outbox` message) records its inbox's host, which
 * gives it a slot among deliveries (federation/stores/delivery_lane.ts).
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

/** A statement run through executePrepared (db/queries/prepared.ts): its name, text and values. */
export interface PreparedStatement {
  name: string;
  build: () => SQL;
  values: Record<string, unknown>;
}

/** A boolean expression with placeholders (federation/stores/inbox_marks.ts), its text named. */
export interface MarkedExpression {
  name: string;
  sql: SQL;
  values: Record<string, unknown>;
}

/** The host a delivery goes to (Fedify's `outbox` message); null for other messages. */
export function deliveryHost(message: unknown): string | null {
  if (!message || typeof message !== "object") return null;
  const { type, inbox } = message as { type?: unknown; inbox?: unknown };
  if (type !== "outbox" || typeof inbox !== "string") return null;
  try {
    return new URL(inbox).host || null;
  } catch {
    return null;
  }
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
      sql`(${JSON.stringify(m)}::jsonb, ${runAt}::timestamptz, true, ${deliveryHost(m)}::text)`
    );
    queued = sql`queued AS (INSERT INTO federation_queue (message, run_at, ready, host)
      VALUES ${sql.join(values, sql`, `)} RETURNING ready)`;
  } else {
    if (messages.length !== 1) throw new Error("One message at a time per ordering key");
    const values = keyedValues(messages[0], { ...place, orderingKey: key });
    queued = keyedSql((name) => values[name]);
  }
  if (!place.wake || place.runAt.getTime() > Date.now()) {
    return sql`WITH ${queued} SELECT * FROM queued`;
  }
  // pg_notify runs once per ready row; idle workers wake once per commit anyway.
  // The payload names the lane that takes the messages (sql_queue.ts's listen).
  const lane = messages.every((m) => deliveryHost(m) != null) ? "deliveries" : "general";
  return sql`WITH ${queued} SELECT ready,
    (SELECT count(*) FROM (SELECT pg_notify(${QUEUE_CHANNEL}, ${lane}) FROM queued WHERE ready) n)
      AS woken
    FROM queued`;
}

/**
 * {@link queueMessages} for one message with an ordering key and no
 * wake-up (Fedify's queue: one per inbound activity), as a prepared
 * statement: its text is built once per process instead of for every
 * message (about 8 µs of CPU each). `marked` is returned with each row.
 */
export function queueKeyed(
  message: unknown,
  place: QueuePlace & { orderingKey: string },
  marked?: MarkedExpression,
): PreparedStatement {
  return {
    name: marked ? `queue_keyed:${marked.name}` : "queue_keyed",
    build: () => {
      const queued = keyedSql((name) => sql.placeholder(name));
      return marked
        ? sql`WITH ${queued} SELECT *, ${marked.sql} AS marked FROM queued`
        : sql`WITH ${queued} SELECT * FROM queued`;
    },
    values: { ...keyedValues(message, place), ...marked?.values },
  };
}

/** The values of {@link keyedSql}'s placeholders. */
interface KeyedValues {
  json: string;
  key: string;
  run_at: string;
  host: string | null;
  claim_ms: number | null;
}

function keyedValues(message: unknown, place: QueuePlace & { orderingKey: string }): KeyedValues {
  return {
    json: JSON.stringify(message),
    key: place.orderingKey,
    run_at: place.runAt.toISOString(),
    host: deliveryHost(message),
    claim_ms: place.claimForMs ?? null,
  };
}

/** The CTEs that queue one message with a key; `param` gives each value (or its placeholder). */
function keyedSql(param: (name: keyof KeyedValues) => unknown): SQL {
  const [json, key, runAt, host, claimMs] = [
    param("json"),
    param("key"),
    param("run_at"),
    param("host"),
    param("claim_ms"),
  ];
  return sql`head AS (
      INSERT INTO federation_queue (message, ordering_key, run_at, ready, host, locked_until)
      SELECT ${json}::jsonb, ${key}::text, ${runAt}::timestamptz, f.free, ${host}::text, CASE
        WHEN f.free AND ${claimMs}::int IS NOT NULL
        THEN now() + ${claimMs}::int * interval '1 millisecond' END
      FROM (SELECT NOT EXISTS (
        SELECT 1 FROM federation_queue WHERE ordering_key = ${key} FOR KEY SHARE) AS free) f
      ON CONFLICT (ordering_key) WHERE ready AND ordering_key IS NOT NULL DO NOTHING
      RETURNING id, ready, locked_until IS NOT NULL AS claimed),
    behind AS (
      INSERT INTO federation_queue (message, ordering_key, run_at, ready, host)
      SELECT ${json}::jsonb, ${key}::text, ${runAt}::timestamptz, false, ${host}::text
      WHERE NOT EXISTS (SELECT 1 FROM head)
      RETURNING id, ready, false AS claimed),
    queued AS (SELECT id, ready, claimed FROM head UNION ALL SELECT id, ready, claimed FROM behind)`;
}
