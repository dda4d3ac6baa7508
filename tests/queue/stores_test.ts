/**
 * Fedify's key–value store and message queue as the server builds them for
 * the database under test (createStores), exercised through their interfaces.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/connection.ts";
import { createStores } from "../../federation/stores/mod.ts";
import { createTestDatabase, DB_KIND, test } from "../harness.ts";
import { eventually } from "../fixtures/wait.ts";

type Opened = Awaited<ReturnType<typeof openDatabase>>;

/** A fresh database; `url` is its PostgreSQL address (null on PGlite). */
async function withDatabase(fn: (db: Opened, url: string | null) => Promise<void>) {
  const pg = DB_KIND === "postgres" ? await createTestDatabase() : null;
  const database = await openDatabase({ databaseUrl: pg?.url ?? null, pgliteDir: "memory://" });
  try {
    await fn(database, pg?.url ?? null);
  } finally {
    await database.close();
    await pg?.drop();
  }
}

test("the KV store gets, sets, lists by prefix, expires and compares-and-swaps", async () => {
  await withDatabase(async (database) => {
    const { kv } = createStores(database);
    assert.equal(await kv.get(["a", "1"]), undefined);
    await kv.set(["a", "1"], { n: 1 });
    await kv.set(["a", "2"], [1, "two"]);
    await kv.set(["ab", "3"], "not under a");
    await kv.set(["b"], 42);
    assert.deepEqual(await kv.get(["a", "1"]), { n: 1 });
    const listed = [];
    for await (const entry of kv.list(["a"])) listed.push(entry);
    assert.deepEqual(listed, [{ key: ["a", "1"], value: { n: 1 } }, {
      key: ["a", "2"],
      value: [1, "two"],
    }]);
    await kv.delete(["a", "1"]);
    assert.equal(await kv.get(["a", "1"]), undefined);

    await kv.set(["short"], "lived", { ttl: Temporal.Duration.from({ milliseconds: 300 }) });
    assert.equal(await kv.get(["short"]), "lived");
    await eventually("the entry to expire", async () => (await kv.get(["short"])) === undefined);
    if (database.pg) {
      // Expired rows are purged at most once a minute (postgres_kv.ts), not
      // by every write: the row is still there, and still never read.
      await kv.set(["b"], 43);
      const [row] = await database.pg`SELECT count(*)::int AS n FROM fedify_kv_v2
        WHERE key = ${["short"]}::text[]`;
      assert.equal(row.n, 1);
      assert.equal(await kv.get(["short"]), undefined);
      assert.equal(await kv.get(["b"]), 43);
    }

    assert.ok(kv.cas, "both stores support compare-and-swap");
    assert.equal(await kv.cas(["c"], undefined, 1), true);
    assert.equal(await kv.cas(["c"], undefined, 2), false);
    assert.equal(await kv.cas(["c"], 2, 3), false);
    assert.equal(await kv.cas(["c"], 1, { n: 3 }), true);
    assert.deepEqual(await kv.get(["c"]), { n: 3 });
    assert.equal(await kv.cas(["c"], { n: 3 }, 4), true);
    assert.equal(await kv.get(["c"]), 4);
    // An expired entry counts as absent.
    await kv.set(["gone"], "old", { ttl: Temporal.Duration.from({ milliseconds: 200 }) });
    await eventually("the entry to expire", async () => (await kv.get(["gone"])) === undefined);
    assert.equal(await kv.cas(["gone"], undefined, "new"), true);
    assert.equal(await kv.get(["gone"]), "new");
  });
});

test("two servers' first uses of the KV store at once on a fresh database do not collide", async () => {
  await withDatabase(async (database, url) => {
    // On PostgreSQL a second connection pool, as another process has; on
    // PGlite the one database (a single process owns it).
    const other = url ? await openDatabase({ databaseUrl: url, pgliteDir: "" }) : database;
    try {
      const stores = [createStores(database).kv, createStores(other).kv];
      // Each store's first operations at once, several per store (one
      // process's concurrent inbox requests): none may fail on the table
      // being made by another.
      await Promise.all(stores.flatMap((kv, s) =>
        [0, 1, 2, 3].map(async (i) => {
          await kv.set(["first", `${s}-${i}`], i);
          assert.equal(await kv.get(["first", `${s}-${i}`]), i);
        })
      ));
      assert.equal(await stores[1].get(["first", "0-3"]), 3);
    } finally {
      if (other !== database) await other.close();
    }
  });
});

test("signature spec hints are remembered: read once, written when they change", async () => {
  await withDatabase(async (database) => {
    const { kv } = createStores(database);
    const key = ["_fedify", "httpMessageSignaturesSpec", "https://peer.example"] as const;
    /** The stored value, changed or read behind the store's back (another process). */
    const stored = async (value?: string) => {
      if (database.pg) {
        if (value) {
          await database.pg`UPDATE fedify_kv_v2 SET value = ${
            JSON.stringify(value)
          }::jsonb WHERE key = ${key}::text[]`;
        }
        const [row] = await database.pg`SELECT value FROM fedify_kv_v2 WHERE key = ${key}::text[]`;
        return row?.value;
      }
      const name = JSON.stringify(key);
      if (value) {
        await database.rows(sql`UPDATE federation_kv SET value = ${JSON.stringify(value)}::jsonb
          WHERE key = ${name}`);
      }
      const [row] = await database.rows<{ value: unknown }>(
        sql`SELECT value FROM federation_kv WHERE key = ${name}`,
      );
      return row?.value;
    };
    await kv.set(key, "draft-cavage-http-signatures-12");
    assert.equal(await stored(), "draft-cavage-http-signatures-12");
    // Another process's change is not read while the hint is remembered…
    await stored("rfc9421");
    assert.equal(await kv.get(key), "draft-cavage-http-signatures-12");
    // …nor overwritten by the same value again; a different value is written.
    await kv.set(key, "draft-cavage-http-signatures-12");
    assert.equal(await stored(), "rfc9421");
    await kv.set(key, "rfc9421");
    await stored("draft-cavage-http-signatures-12");
    await kv.set(key, "rfc9421");
    assert.equal(await stored(), "draft-cavage-http-signatures-12");
    // Other keys go to the store every time.
    await kv.set(["other"], 1);
    if (database.pg) {
      await database.pg`UPDATE fedify_kv_v2 SET value = '2' WHERE key = ${["other"]}::text[]`;
    } else await database.rows(sql`UPDATE federation_kv SET value = '2' WHERE key = '["other"]'`);
    assert.equal(await kv.get(["other"]), 2);
  });
});

test("queued messages with one ordering key run one at a time, in order", async () => {
  await withDatabase(async (database) => {
    const { queue } = createStores(database, { concurrency: 8, pollMs: 100 });
    const events: string[] = [];
    for (const n of [1, 2, 3]) await queue.enqueue({ n }, { orderingKey: "actor-1" });
    const abort = new AbortController();
    const seen = new Set<number>();
    const listening = queue.listen(async ({ n }: { n: number }) => {
      events.push(`start ${n}`);
      if (n < 3) {
        // Holds until an unordered message enqueued now has started: the
        // queue has claimed again while n ran, oldest first, and skipped
        // the next message of n's key although it is older.
        await queue.enqueue({ n: 100 + n });
        await eventually(`message ${100 + n}`, () => {
          return Promise.resolve(events.includes(`start ${100 + n}`));
        });
      }
      events.push(`end ${n}`);
      seen.add(n);
      if (seen.size === 5) abort.abort();
    }, { signal: abort.signal });
    await listening;
    const ordered = events.filter((e) => Number(e.split(" ")[1]) < 100);
    assert.deepEqual(ordered, ["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
  });
});

test("a delayed message waits for its time", async () => {
  await withDatabase(async (database) => {
    const { queue } = createStores(database, { pollMs: 100 });
    const enqueuedAt = Date.now();
    await queue.enqueue({ later: true }, { delay: Temporal.Duration.from({ milliseconds: 800 }) });
    const abort = new AbortController();
    let handledAt = 0;
    await queue.listen(() => {
      handledAt = Date.now();
      abort.abort();
    }, { signal: abort.signal });
    assert.ok(handledAt - enqueuedAt >= 700, `handled after ${handledAt - enqueuedAt} ms`);
  });
});
