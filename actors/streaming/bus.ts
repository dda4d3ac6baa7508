/**
 * The streaming bus: how a command tells every process's open streams that
 * something happened.
 *
 * A command publishes {@link StreamEvent}s inside its own transaction with
 * {@link publishStreamEvents}. They travel as `NOTIFY` on one channel, which
 * PostgreSQL delivers at commit (a rolled-back write announces nothing) to
 * every listening connection: the process that wrote and any other process on
 * the same PostgreSQL (web, worker, the admin command). PGlite delivers them
 * in-process the same way. An event whose JSON is too long for a NOTIFY
 * payload (8000 bytes) is stored in `stream_events` and only its id is
 * notified ("by reference"); listeners read it back.
 *
 * Events name what changed and who is concerned, never a rendered entity:
 * each process renders the payload per viewer when it sends (the API's
 * serializers, with the viewer's visibility, blocks, mutes and filters).
 * Who receives a status on `user` and `list` streams is what fan-out decided
 * (the rows it inserted), not a second computation.
 */
import { type Placeholder, type SQL, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { ChannelListener } from "../../db/channel_listener.ts";
import type { Database, Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { textArray } from "../../db/queries/text_array.ts";

const logger = getLogger(["rookery", "streaming"]);

/** The NOTIFY channel of the bus. */
export const STREAM_CHANNEL = "rookery_stream";

/**
 * The longest payload sent inline. PostgreSQL's limit is 8000 bytes; the
 * margin keeps clear of it whatever the encoding adds.
 */
const INLINE_LIMIT = 7000;

/** The prefix of a notified reference to a `stream_events` row. */
const REFERENCE = "@";

/** How long a stored event is kept for listeners to read it. */
const KEEP_STORED = "10 minutes";

/** One change the streams may show. Ids are strings, as everywhere. */
export type StreamEvent =
  /**
   * A new status or boost. `home`: the local accounts whose home feed fan-out
   * put it in; `lists`: the lists it entered. Public and hashtag streams
   * decide from the status itself.
   */
  | { event: "update"; statusId: string; home: string[]; lists: string[] }
  /** An edited status: the home feeds and lists that hold it. */
  | { event: "status.update"; statusId: string; home: string[]; lists: string[] }
  /**
   * A deleted status (or boost): the home feeds and lists that held it.
   * With `feedsOnly`, the status lives on and only left these feeds (a block
   * or mute cleared the author from one's home): public and hashtag streams
   * are not concerned.
   */
  | { event: "delete"; statusId: string; home: string[]; lists: string[]; feedsOnly?: true }
  /** A new notification (not a filtered one) for a local account. */
  | { event: "notification"; accountId: string; notificationId: string }
  /**
   * A direct conversation of a local account changed: a new status in it, a
   * held-back one let in (accepted request), its last status deleted, marked
   * read or unread. `conversationId` is the account_conversations row, the
   * Conversation entity's id.
   */
  | { event: "conversation"; accountId: string; conversationId: string }
  /** The account's filters changed. */
  | { event: "filters_changed"; accountId: string }
  /** An announcement was published or changed (everyone's `user` stream). */
  | { event: "announcement"; announcementId: string }
  /** A reaction to an announcement was added or removed. */
  | { event: "announcement.reaction"; announcementId: string; name: string; count: number }
  /** An announcement was unpublished or deleted. */
  | { event: "announcement.delete"; announcementId: string }
  /** Accepted notification requests were merged into the notifications. */
  | { event: "notifications_merged"; accountId: string };

/**
 * Publishes events in `tx`; they reach listeners when it commits, in the
 * order given. One statement for all inline events (a fan-out may notify
 * many accounts), one per stored event.
 */
export async function publishStreamEvents(
  tx: Executor,
  events: readonly StreamEvent[],
): Promise<void> {
  const inline: string[] = [];
  for (const event of events) {
    const text = JSON.stringify(event);
    // Bytes, not UTF-16 units: a payload of emoji is longer than it looks.
    if (text.length * 3 <= INLINE_LIMIT || byteLength(text) <= INLINE_LIMIT) {
      inline.push(text);
      continue;
    }
    if (inline.length > 0) await notifyAll(tx, inline.splice(0));
    await tx.execute(sql`WITH stored AS (
        INSERT INTO stream_events (id, payload) VALUES (${newId()}, ${text}::jsonb) RETURNING id)
      SELECT pg_notify(${STREAM_CHANNEL}, ${REFERENCE} || id::text) FROM stored`);
    await pruneStoredEvents(tx);
  }
  if (inline.length > 0) await notifyAll(tx, inline);
}

/**
 * Stored events are read within milliseconds; after storing one, old ones
 * are pruned now and then (rows another transaction is pruning are
 * skipped, not waited for).
 */
export async function pruneStoredEvents(tx: Executor): Promise<void> {
  if (Math.random() >= 0.05) return;
  await tx.execute(sql`DELETE FROM stream_events WHERE id IN (
    SELECT id FROM stream_events WHERE created_at < now() - ${KEEP_STORED}::interval
    FOR UPDATE SKIP LOCKED)`);
}

/** Publishes one event in `tx` (see {@link publishStreamEvents}). */
export async function publishStreamEvent(tx: Executor, event: StreamEvent): Promise<void> {
  await publishStreamEvents(tx, [event]);
}

/** The `kind` of the row {@link notifyEvent} answers when it stored the event. */
export const STORED = "N";

/**
 * A CTE (named `stored_event`, for the WITH list of the statement that
 * uses {@link notifyEvent}) that stores the event whose JSON text is the
 * `payload` column of `source` (a CTE of the same statement), under the id
 * `id`, when it is too long to be notified inline.
 */
export function storeLongEvent(source: SQL, id: SQL | Placeholder): SQL {
  return sql`stored_event AS (INSERT INTO stream_events (id, payload)
      SELECT ${id}::bigint, e.payload::jsonb FROM ${source} e
        WHERE octet_length(e.payload) > ${sql.raw(String(INLINE_LIMIT))}
      RETURNING id)`;
}

/**
 * A SELECT (for a UNION ALL: columns `kind`, `id`) that notifies the event
 * of `source` (see {@link storeLongEvent}, which the statement must hold
 * too): inline when it fits, else by reference to `stored_event`, which
 * answers a row of kind {@link STORED}. A statement that decides what it
 * announces (fan-out) so announces it without a round trip of its own, at
 * the point of the transaction where it runs, and without handing the
 * event's receivers (10,000 ids for a post to 10,000 followers) to the
 * process and back. With `inlineOnly`, for an event that names no
 * receivers (always short), the statement needs no `stored_event`.
 */
export function notifyEvent(source: SQL, { inlineOnly = false } = {}): SQL {
  const channel = sql.raw(`'${STREAM_CHANNEL}'`);
  const inline = sql`SELECT 'n' AS kind, pg_notify(${channel}, e.payload)::text AS id
    FROM ${source} e WHERE octet_length(e.payload) <= ${sql.raw(String(INLINE_LIMIT))}`;
  if (inlineOnly) return inline;
  return sql`${inline}
    UNION ALL SELECT ${sql.raw(`'${STORED}'`)},
      pg_notify(${channel}, ${sql.raw(`'${REFERENCE}'`)} || id::text)::text FROM stored_event`;
}

async function notifyAll(tx: Executor, payloads: string[]): Promise<void> {
  if (payloads.length === 1) {
    await tx.execute(sql`SELECT pg_notify(${STREAM_CHANNEL}, ${payloads[0]})`);
    return;
  }
  // WITH ORDINALITY keeps the order: listeners see events as published.
  await tx.execute(sql`SELECT pg_notify(${STREAM_CHANNEL}, p.payload)
    FROM unnest(${textArray(payloads)}::text[])
      WITH ORDINALITY AS p(payload, n) ORDER BY p.n`);
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/**
 * Receives every event published on the database, in commit order. It may
 * return a promise that settles once it has delivered the event (the hub's
 * sends): {@link StreamBus.quiet} waits for it.
 */
export type StreamListener = (event: StreamEvent) => void | Promise<unknown>;

/**
 * The process's end of the bus (process/core.ts holds one): hears the
 * channel on the core's listener and calls every subscriber for every event
 * published on the database (by any process, on PostgreSQL), in commit
 * order. One LISTEN however many subscribers.
 */
export class StreamBus {
  readonly #database: Database;
  readonly #subscribers = new Set<StreamListener>();
  /** Resolves once the LISTEN is in place (or failed). */
  #ready: Promise<void> = Promise.resolve();
  /** Events are handled one after another, so a stored one keeps its place. */
  #queue: Promise<void> = Promise.resolve();
  #unlisten: (() => Promise<void>) | null = null;
  /** Events heard and not yet delivered by every subscriber. */
  #undelivered = 0;
  /** Who waits for {@link quiet}. */
  readonly #quietWaiters = new Set<() => void>();
  #stopped = false;

  constructor(database: Database) {
    this.#database = database;
  }

  /** Starts hearing the channel (the core does it as it opens). */
  listen(listener: ChannelListener): void {
    const received = (payload: string) => {
      this.#undelivered++;
      const handed = this.#queue.then(() => this.#dispatch(payload));
      this.#queue = handed.then(() => {});
      // The queue hands the next event on at once; delivery is the subscribers'.
      handed.then((deliveries) => Promise.allSettled(deliveries)).finally(() => {
        if (--this.#undelivered === 0) this.#wakeQuiet();
      });
    };
    this.#ready = listener.listen(STREAM_CHANNEL, received).then((unlisten) => {
      this.#unlisten = unlisten;
    }, (error) => {
      logger.error("Could not listen for streaming events: {error}", { error });
    });
  }

  /**
   * Calls `subscriber` for every event from now on. Resolves once listening;
   * the function it resolves to ends this subscription.
   */
  async subscribe(subscriber: StreamListener): Promise<() => void> {
    this.#subscribers.add(subscriber);
    await this.#ready;
    return () => {
      this.#subscribers.delete(subscriber);
    };
  }

  /**
   * Resolves once every event heard so far has been delivered (the frames
   * of a post sent), or after `maxMs` at the latest: work that may wait
   * (the relay writing a large fan-out's home rows, fanout.ts) then does
   * not take the cores the frames are sent with. Events that keep coming
   * delay it no longer than `maxMs`.
   */
  quiet(maxMs: number): Promise<void> {
    if (this.#undelivered === 0 || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#quietWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      this.#quietWaiters.add(done);
    });
  }

  #wakeQuiet(): void {
    for (const done of [...this.#quietWaiters]) done();
  }

  /** Stops hearing the channel (the process is closing). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wakeQuiet();
    this.#subscribers.clear();
    await this.#ready;
    await this.#unlisten?.();
    this.#unlisten = null;
  }

  /** Hands the event to every subscriber; resolves to their deliveries under way. */
  async #dispatch(payload: string): Promise<unknown[]> {
    const event = await readEvent(this.#database, payload);
    const deliveries: unknown[] = [];
    if (!event) return deliveries;
    for (const subscriber of this.#subscribers) {
      try {
        const delivery = subscriber(event);
        if (delivery) deliveries.push(delivery);
      } catch (error) {
        logger.warn("A streaming listener failed: {error}", { error });
      }
    }
    return deliveries;
  }
}

/** The event a notification carries (or names, when it was too long); null if gone or unreadable. */
async function readEvent(database: Database, payload: string): Promise<StreamEvent | null> {
  try {
    if (!payload.startsWith(REFERENCE)) return JSON.parse(payload) as StreamEvent;
    const [row] = await database.rows<{ payload: unknown }>(
      sql`SELECT payload FROM stream_events WHERE id = ${payload.slice(1)}::bigint`,
    );
    if (!row) return null; // pruned: nobody can still be waiting for it
    return (typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload) as StreamEvent;
  } catch (error) {
    logger.warn("Dropped an unreadable streaming event: {error}", { error });
    return null;
  }
}
