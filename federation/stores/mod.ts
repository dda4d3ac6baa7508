/**
 * Chooses Fedify's key–value store and message queue for the database in use.
 */
import type { KvStore } from "@fedify/fedify";
import type { Database } from "../../db/connection.ts";
import { ChannelListener } from "../../db/channel_listener.ts";
import { RookeryPostgresKvStore } from "./postgres_kv.ts";
import { SqlKvStore } from "./sql_kv.ts";
import {
  type PlaceKeepingQueue,
  SqlMessageQueue,
  type SqlMessageQueueOptions,
} from "./sql_queue.ts";
import { QUEUE_CHANNEL } from "../../db/queries/queue_rows.ts";
import { CoalescedNotify } from "./coalesced_notify.ts";
import { KvWithHints } from "./kv_hints.ts";
import { InboxMarks, MarkedKv } from "./inbox_marks.ts";

export interface FederationStores {
  kv: KvStore;
  queue: PlaceKeepingQueue;
  /** Periodic clean-up (expired KV entries); run by worker processes. */
  maintain(): Promise<void>;
}

/**
 * The stores for `database`. Queue wake-ups are heard on `listener` (the
 * process core's); a test that builds a queue alone may leave it out and
 * the queue listens on a listener of its own.
 */
export function createStores(
  database: Database,
  queueOptions: SqlMessageQueueOptions = {},
  listener?: ChannelListener,
): FederationStores {
  if (database.kind === "postgres" && database.pg) {
    const pg = database.pg;
    const wakes = listener ?? new ChannelListener(database);
    // One NOTIFY at a time per lane: a fan-out's thousand enqueues share a few.
    const notifies = new CoalescedNotify((lane) => pg.notify(QUEUE_CHANNEL, lane).then(() => {}));
    const kv = new RookeryPostgresKvStore(pg);
    const marks = new InboxMarks("fedify_kv_v2", () => kv.initialize());
    return {
      // KV from @fedify/postgres; the queue is ours (see sql_queue.ts for why).
      kv: new KvWithHints(new MarkedKv(kv, marks)),
      queue: new SqlMessageQueue(database, {
        ...queueOptions,
        marks,
        signal: {
          notify: (lane) => notifies.notify(lane),
          subscribe: (wake) => wakes.listen(QUEUE_CHANNEL, wake),
        },
      }),
      maintain: async () => {},
    };
  }
  const kv = new SqlKvStore(database);
  const pglite = database.pglite!;
  const marks = new InboxMarks("federation_kv");
  return {
    kv: new KvWithHints(new MarkedKv(kv, marks)),
    // PGlite has one owner process: any lease found at start is a dead one's.
    queue: new SqlMessageQueue(database, {
      releaseLeasesOnStart: true,
      marks,
      // The queue wakes itself for its own enqueues; jobs recorded in a
      // command's transaction (actors/outbox/jobs.ts) wake it at commit.
      signal: {
        notify: () => Promise.resolve(),
        subscribe: async (wake) => {
          const unlisten = await pglite.listen(QUEUE_CHANNEL, wake);
          return () => unlisten();
        },
      },
      ...queueOptions,
    }),
    maintain: () => kv.purgeExpired(),
  };
}
