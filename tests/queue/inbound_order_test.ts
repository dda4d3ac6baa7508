/**
 * Inbound activities through the queue the server builds (createStores
 * wrapped by federation/stores/fedify_queue.ts), with messages shaped as Fedify queues
 * them and a handler that fails and retries as Fedify's does: one actor's
 * activities run one at a time in the order they were queued, a retry keeps
 * its place in that line, one that keeps failing is dropped and the line
 * moves on, other actors are not held up, and a line a crash left without a
 * ready message is picked up again.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/connection.ts";
import { createStores } from "../../federation/stores/mod.ts";
import { FedifyQueue } from "../../federation/stores/fedify_queue.ts";
import { INBOX_MAX_ATTEMPTS, INBOX_RETRY_POLICY } from "../../federation/inbox/order.ts";
import type { AppContext } from "../../context.ts";
import { createTestDatabase, DB_KIND, POSTGRES_ONLY, test } from "../harness.ts";
import { eventually } from "../fixtures/wait.ts";

type Database = Awaited<ReturnType<typeof openDatabase>>;

async function withDatabase(fn: (db: Database) => Promise<void>) {
  const pg = DB_KIND === "postgres" ? await createTestDatabase() : null;
  const database = await openDatabase({ databaseUrl: pg?.url ?? null, pgliteDir: "memory://" });
  try {
    await fn(database);
  } finally {
    await database.close();
    await pg?.drop();
  }
}

/** An inbox message as Fedify queues it (what the wrapper reads of it). */
interface InboxMessage {
  type: "inbox";
  id: string;
  activity: { id: string; actor: string };
  attempt: number;
}

function inboxMessage(actor: string, n: number): InboxMessage {
  return {
    type: "inbox",
    id: crypto.randomUUID(),
    activity: { id: `${actor}/activities/${n}`, actor },
    attempt: 0,
  };
}

/** The server's queue: the database's store, wrapped as federation/mod.ts wraps it. */
function serverQueue(database: Database) {
  const { queue } = createStores(database, { concurrency: 8, pollMs: 100 });
  const ctx = { database } as unknown as AppContext;
  return new FedifyQueue(queue, ctx);
}

/** What Fedify does with a failed inbox message: queue it again, one attempt on, after a delay. */
function retry(queue: FedifyQueue, message: InboxMessage, delayMs: number) {
  return queue.enqueue(
    { ...message, attempt: message.attempt + 1 },
    { delay: Temporal.Duration.from({ milliseconds: delayMs }) },
  );
}

const ALICE = "https://peer.example/users/alice";
const BOB = "https://peer.example/users/bob";
const CAROL = "https://peer.example/users/carol";

test("one actor's activities run in order; a retry keeps its place; others go on", async () => {
  await withDatabase(async (database) => {
    const queue = serverQueue(database);
    for (const n of [1, 2, 3]) await queue.enqueue(inboxMessage(ALICE, n));
    await queue.enqueue(inboxMessage(BOB, 1));
    const events: string[] = [];
    const bobDone = Promise.withResolvers<void>();
    const abort = new AbortController();
    const name = (m: InboxMessage) =>
      `${m.activity.actor.split("/").pop()} ${m.activity.id.split("/").pop()}`;
    await queue.listen(async (m: InboxMessage) => {
      events.push(`start ${name(m)}#${m.attempt}`);
      const alices = m.activity.actor === ALICE;
      if (m.activity.actor === BOB) bobDone.resolve();
      else if (alices && m.activity.id.endsWith("/1")) {
        // Alice's first fails twice; its retry waits for Bob, so Bob must
        // not be held behind Alice's line.
        if (m.attempt < 2) await retry(queue, m, 50);
        else await bobDone.promise;
      } else if (alices && m.activity.id.endsWith("/2")) {
        // Holds until Carol's, queued now, has started: the queue has
        // claimed again (oldest first) while Alice's 2 ran, and passed over
        // her 3, older than Carol's, as it must.
        await queue.enqueue(inboxMessage(CAROL, 1));
        await eventually("Carol's activity", () => {
          return Promise.resolve(events.includes("start carol 1#0"));
        });
      }
      events.push(`end ${name(m)}#${m.attempt}`);
      if (alices && m.activity.id.endsWith("/3")) abort.abort();
    }, { signal: abort.signal });
    const alice = events.filter((e) => e.includes("alice"));
    assert.deepEqual(alice, [
      "start alice 1#0",
      "end alice 1#0",
      "start alice 1#1",
      "end alice 1#1",
      "start alice 1#2",
      "end alice 1#2",
      "start alice 2#0",
      "end alice 2#0",
      "start alice 3#0",
      "end alice 3#0",
    ]);
    assert.ok(events.includes("end bob 1#0"));
    assert.ok(events.includes("end carol 1#0"));
    const [{ n }] = await database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM federation_queue`,
    );
    assert.equal(n, 0, "nothing is left queued");
  });
});

test("an activity that keeps failing is dropped, and its actor's next ones proceed", async () => {
  await withDatabase(async (database) => {
    const queue = serverQueue(database);
    await queue.enqueue(inboxMessage(ALICE, 1));
    await queue.enqueue(inboxMessage(ALICE, 2));
    const seen: string[] = [];
    const abort = new AbortController();
    await queue.listen(async (m: InboxMessage) => {
      seen.push(`${m.activity.id.split("/").pop()}#${m.attempt}`);
      // Fedify asks its retry policy and, past the last attempt, queues nothing.
      if (m.activity.id.endsWith("/1")) {
        const delay = INBOX_RETRY_POLICY({
          elapsedTime: Temporal.Duration.from({ seconds: 0 }),
          attempts: m.attempt + INBOX_MAX_ATTEMPTS - 2,
        });
        if (delay) await retry(queue, m, 10);
      } else abort.abort();
    }, { signal: abort.signal });
    assert.deepEqual(seen, ["1#0", "1#1", "1#2", "2#0"]);
  });
});

test("the inbound retry policy holds an actor's line for minutes, not hours", () => {
  let worst = 0;
  for (let attempts = 0;; attempts++) {
    const delay = INBOX_RETRY_POLICY({
      elapsedTime: Temporal.Duration.from({ seconds: 0 }),
      attempts,
    });
    if (!delay) {
      assert.equal(attempts, INBOX_MAX_ATTEMPTS);
      break;
    }
    // Jitter makes each delay up to twice its base: count the most it can be.
    worst += Math.min(60_000, 2 ** attempts * 2_000);
    assert.ok(delay.total("millisecond") <= 60_000, `attempt ${attempts}: ${delay}`);
  }
  assert.ok(worst <= 5 * 60_000, `at most ${worst} ms in all`);
});

test("a line whose next message was never readied (a crash) is picked up again", async () => {
  await withDatabase(async (database) => {
    // As a process killed between finishing a message and readying the next leaves it.
    for (const n of [1, 2]) {
      await database.rows(sql`INSERT INTO federation_queue (message, ordering_key, ready)
        VALUES (${JSON.stringify({ n })}::jsonb, 'key', false)`);
    }
    const { queue } = createStores(database, { pollMs: 100 });
    const seen: number[] = [];
    const abort = new AbortController();
    await queue.listen((m: { n: number }) => {
      seen.push(m.n);
      if (seen.length === 2) abort.abort();
    }, { signal: abort.signal });
    assert.deepEqual(seen, [1, 2]);
  });
});

test("an activity queued while the worker has a slot free runs here at once, in its line", async () => {
  await withDatabase(async (database) => {
    // A poll a minute apart: what runs soon was handed over in this process.
    const { queue: store } = createStores(database, { concurrency: 8, pollMs: 60_000 });
    const queue = new FedifyQueue(store, { database } as unknown as AppContext);
    const sent = [1, 2, 3].map((n) => inboxMessage(ALICE, n));
    const handed: unknown[] = [];
    const seen: string[] = [];
    const bobDone = Promise.withResolvers<void>();
    const abort = new AbortController();
    await queue.enqueue(inboxMessage(BOB, 1));
    const listening = queue.listen(async (m: InboxMessage) => {
      if (m.activity.actor === BOB) return bobDone.resolve();
      handed.push(m);
      seen.push(`${m.activity.id.split("/").pop()}#${m.attempt}`);
      // The first fails once; the others wait behind it.
      if (m.activity.id.endsWith("/1") && m.attempt === 0) await retry(queue, m, 10);
      if (m.activity.id.endsWith("/3")) abort.abort();
    }, { signal: abort.signal });
    // Bob's, queued before, ran: the worker is listening.
    await bobDone.promise;
    for (const m of sent) await queue.enqueue(m);
    await listening;
    assert.deepEqual(seen, ["1#0", "1#1", "2#0", "3#0"]);
    // The first ran as it was handed over: no claim read it back from the table.
    assert.ok(handed.includes(sent[0]), "the first activity was run in this process at once");
    const [{ n }] = await database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM federation_queue`,
    );
    assert.equal(n, 0, "nothing is left queued");
  });
});

test("with every slot busy, an activity is queued for the next free worker", async () => {
  await withDatabase(async (database) => {
    const { queue: store } = createStores(database, { concurrency: 1, pollMs: 100 });
    const queue = new FedifyQueue(store, { database } as unknown as AppContext);
    const release = Promise.withResolvers<void>();
    const started = Promise.withResolvers<void>();
    const seen: string[] = [];
    const abort = new AbortController();
    await queue.enqueue(inboxMessage(ALICE, 1));
    const listening = queue.listen(async (m: InboxMessage) => {
      seen.push(m.activity.actor.split("/").pop()!);
      if (m.activity.actor === ALICE) {
        started.resolve();
        await release.promise;
      } else abort.abort();
    }, { signal: abort.signal });
    await started.promise;
    // Alice's holds the only slot: Bob's waits in the table, and runs after.
    await queue.enqueue(inboxMessage(BOB, 1));
    const [{ n }] = await database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM federation_queue WHERE locked_until IS NULL`,
    );
    assert.equal(n, 1, "Bob's activity waits unclaimed");
    release.resolve();
    await listening;
    assert.deepEqual(seen, ["alice", "bob"]);
  });
});

test(
  "an activity handed over in a worker still holds its actor's next, queued by a web process",
  POSTGRES_ONLY,
  async () => {
    const pg = await createTestDatabase();
    // A worker's queue and a web process's (which never listens), on one database.
    const [worker, web] = await Promise.all(
      [1, 2].map(() => openDatabase({ databaseUrl: pg.url, pgliteDir: "" })),
    );
    try {
      const queue = serverQueue(worker);
      const events: string[] = [];
      const listening = Promise.withResolvers<void>();
      const started = Promise.withResolvers<void>();
      const release = Promise.withResolvers<void>();
      const abort = new AbortController();
      const probe = inboxMessage(BOB, 1);
      await queue.enqueue(probe);
      const done = queue.listen(async (m: InboxMessage) => {
        if (m.id === probe.id) return listening.resolve();
        const n = m.activity.id.split("/").pop();
        events.push(`start ${n}`);
        if (n === "1") {
          started.resolve();
          await release.promise;
        }
        events.push(`end ${n}`);
        if (n === "2") abort.abort();
      }, { signal: abort.signal });
      await listening.promise;
      await queue.enqueue(inboxMessage(ALICE, 1));
      await started.promise;
      await serverQueue(web).enqueue(inboxMessage(ALICE, 2));
      const [{ waiting }] = await web.rows<{ waiting: number }>(
        sql`SELECT count(*)::int AS waiting FROM federation_queue WHERE NOT ready`,
      );
      assert.equal(waiting, 1, "the second activity waits behind the first");
      release.resolve();
      await done;
      assert.deepEqual(events, ["start 1", "end 1", "start 2", "end 2"]);
    } finally {
      await Promise.all([worker.close(), web.close()]);
      await pg.drop();
    }
  },
);
