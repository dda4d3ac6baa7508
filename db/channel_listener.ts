/**
 * The process's one LISTEN: every module that hears PostgreSQL
 * notifications (cache invalidations, streaming events, outbox intents,
 * queue wake-ups) subscribes here by channel, and this is the only place
 * that tells PGlite from PostgreSQL for it.
 *
 * On PostgreSQL, postgres.js keeps one connection for all the LISTENs of a
 * client and calls a channel's `onlisten` again after each reconnection, so
 * a subscriber's `onListening` runs then too: notifications sent while the
 * connection was down were missed, and a cache must drop its copy. On PGlite
 * notifications are delivered in-process, before the committing query
 * returns.
 *
 * Each channel is LISTENed once, however many subscribers; the last one to
 * leave UNLISTENs it. {@link ChannelListener.close} UNLISTENs everything, and
 * a listener closed (the process is stopping) refuses new subscriptions, so
 * a lookup racing the shutdown reads the database instead of listening again.
 */
import { getLogger } from "@logtape/logtape";
import type { Database } from "./connection.ts";

const logger = getLogger(["rookery", "db", "listen"]);

/** Called with each notification's payload. */
export type ChannelHandler = (payload: string) => void;

/** Stops one subscription. */
export type Unsubscribe = () => Promise<void>;

interface Subscriber {
  onNotify: ChannelHandler;
  onListening?: () => void;
}

interface Channel {
  subscribers: Set<Subscriber>;
  /** Resolves once the LISTEN is in place (rejects if it failed). */
  ready: Promise<void>;
  /** Whether the LISTEN was confirmed (new subscribers are told at once). */
  listening: boolean;
  unlisten: () => Promise<void>;
}

/**
 * The channel the entity triggers (migrations 0005, 0008, 0013) notify at
 * commit: `a<account id>`, `s<status id>`, … or `*` (api/entities/entity_cache.ts).
 */
export const ENTITY_CHANNEL = "rookery_entities";

/** Thrown to subscribers of a listener that was closed. */
export class ListenerClosedError extends Error {
  constructor() {
    super("The process is closing: no longer listening for notifications");
  }
}

export class ChannelListener {
  readonly #database: Database;
  readonly #channels = new Map<string, Channel>();
  #closed = false;

  constructor(database: Database) {
    this.#database = database;
  }

  /**
   * Calls `onNotify` for each notification on `channel` from now on, and
   * `onListening` whenever the LISTEN is (again) in place. Resolves once it
   * is, to the function that ends this subscription; rejects if the LISTEN
   * failed or the listener is closed (the subscriber then reads without a
   * cache, as before it heard anything).
   */
  async listen(
    channel: string,
    onNotify: ChannelHandler,
    onListening?: () => void,
  ): Promise<Unsubscribe> {
    if (this.#closed) throw new ListenerClosedError();
    const subscriber: Subscriber = { onNotify, onListening };
    let entry = this.#channels.get(channel);
    if (!entry) {
      entry = this.#open(channel);
      this.#channels.set(channel, entry);
    }
    entry.subscribers.add(subscriber);
    const joined = entry;
    try {
      await joined.ready;
    } catch (error) {
      joined.subscribers.delete(subscriber);
      throw error;
    }
    // A channel already listening does not call onlisten again for a newcomer.
    if (joined.listening) onListening?.();
    return () => this.#leave(channel, joined, subscriber);
  }

  /** UNLISTENs every channel; later subscriptions are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    const channels = [...this.#channels.values()];
    this.#channels.clear();
    for (const channel of channels) channel.subscribers.clear();
    await Promise.all(channels.map((channel) => this.#stop(channel)));
  }

  #open(channel: string): Channel {
    const entry: Channel = {
      subscribers: new Set(),
      ready: Promise.resolve(),
      listening: false,
      unlisten: () => Promise.resolve(),
    };
    const notify = (payload: string) => {
      for (const subscriber of entry.subscribers) {
        try {
          subscriber.onNotify(payload);
        } catch (error) {
          logger.error("A {channel} subscriber failed: {error}", { channel, error });
        }
      }
    };
    const confirmed = () => {
      const first = !entry.listening;
      entry.listening = true;
      // The first confirmation is reported by listen() itself (after ready).
      if (first) return;
      for (const subscriber of entry.subscribers) subscriber.onListening?.();
    };
    const { pg, pglite } = this.#database;
    if (pg) {
      const request = pg.listen(channel, notify, confirmed);
      entry.ready = request.then(() => {});
      entry.unlisten = () => request.then((l) => l.unlisten());
    } else {
      const request = pglite!.listen(channel, notify);
      entry.ready = request.then(() => confirmed());
      entry.unlisten = () => request.then((unlisten) => unlisten());
    }
    // A failed LISTEN is forgotten: the next subscriber tries again.
    entry.ready.catch(() => {
      if (this.#channels.get(channel) === entry) this.#channels.delete(channel);
    });
    return entry;
  }

  async #leave(channel: string, entry: Channel, subscriber: Subscriber): Promise<void> {
    entry.subscribers.delete(subscriber);
    if (entry.subscribers.size > 0 || this.#channels.get(channel) !== entry) return;
    this.#channels.delete(channel);
    await this.#stop(entry);
  }

  async #stop(entry: Channel): Promise<void> {
    try {
      await entry.ready;
      await entry.unlisten();
    } catch {
      // Never listening, or the connection is already gone: nothing to undo.
    }
  }
}
