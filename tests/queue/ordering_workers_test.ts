/**
 * One ordering key, two worker processes (ROLE=worker twice on one
 * PostgreSQL): the messages of a key still run one at a time, in the order
 * they were queued, and a failed one's retry keeps its place whichever
 * process takes it (federation/stores/sql_queue.ts). Real child processes
 * (tests/fixtures/queue_child.ts) log each message's start and end in a
 * table; the log's order is the database's, across both processes.
 * Two of the keys are deliveries to one host (Fedify's `outbox` messages),
 * which run on the delivery slots (federation/stores/delivery_lane.ts): the
 * same order and no message handled twice there too.
 * PostgreSQL only: PGlite has one owner process.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/connection.ts";
import { createStores } from "../../federation/stores/mod.ts";
import { spawnScript } from "../fixtures/server_process.ts";
import { eventually } from "../fixtures/wait.ts";
import { createTestDatabase, POSTGRES_ONLY, test } from "../harness.ts";

const CHILD = new URL("../fixtures/queue_child.ts", import.meta.url).pathname;
const KEYS = ["k0", "k1", "k2", "k3"];
const PER_KEY = 8;
/** Failed once each, then retried in place. */
const FAILING = new Set(["k0 1", "k2 3"]);
/** Keys whose messages are deliveries, all to one host. */
const DELIVERIES = new Set(["k2", "k3"]);

interface LogRow {
  worker: string;
  key: string;
  n: number;
  attempt: number;
  phase: string;
}

test(
  "two worker processes keep each key's messages in order, retries included",
  POSTGRES_ONLY,
  async () => {
    const pg = await createTestDatabase();
    const database = await openDatabase({ databaseUrl: pg.url, pgliteDir: "memory://" });
    // Each worker handles two messages at a time and one delivery: with four
    // keys, both workers are needed.
    const env = { DATABASE_URL: pg.url, CONCURRENCY: "2", DELIVERY_CONCURRENCY: "1" };
    const workers = ["a", "b"].map((name) => spawnScript(CHILD, { args: ["ordered", name], env }));
    try {
      await database.rows(sql`CREATE TABLE queue_order_log (seq bigserial PRIMARY KEY,
      worker text, key text, n int, attempt int, phase text)`);
      await Promise.all(workers.map((w) => w.waitFor("listening")));
      const { queue } = createStores(database);
      for (let n = 1; n <= PER_KEY; n++) {
        for (const key of KEYS) {
          await queue.enqueue({
            id: crypto.randomUUID(),
            key,
            n,
            attempt: 0,
            fail: FAILING.has(`${key} ${n}`),
            // The first holds its worker until the other has taken one too.
            waitForOther: key === "k0" && n === 1,
            ...(DELIVERIES.has(key) ? { type: "outbox", inbox: "https://peer.example/inbox" } : {}),
          }, { orderingKey: key });
        }
      }
      const ends = KEYS.length * PER_KEY + FAILING.size;
      const log = await eventually("every message handled", async () => {
        const rows = await database.rows<LogRow>(
          sql`SELECT worker, key, n, attempt, phase FROM queue_order_log ORDER BY seq`,
        );
        return rows.filter((r) => r.phase === "end").length === ends ? rows : null;
      }, 120_000);
      for (const key of KEYS) {
        const expected: string[] = [];
        for (let n = 1; n <= PER_KEY; n++) {
          const attempts = FAILING.has(`${key} ${n}`) ? [0, 1] : [0];
          for (const a of attempts) expected.push(`start ${n}#${a}`, `end ${n}#${a}`);
        }
        const seen = log.filter((r) => r.key === key).map((r) => `${r.phase} ${r.n}#${r.attempt}`);
        assert.deepEqual(seen, expected, `key ${key}`);
      }
      assert.deepEqual(new Set(log.map((r) => r.worker)), new Set(["a", "b"]));
      const [{ left }] = await database.rows<{ left: number }>(
        sql`SELECT count(*)::int AS left FROM federation_queue`,
      );
      assert.equal(left, 0);
    } finally {
      await Promise.all(workers.map((w) => w.kill()));
      await database.close();
      await pg.drop();
    }
  },
);
