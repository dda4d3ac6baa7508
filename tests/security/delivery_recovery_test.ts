/**
 * Delivery recovery, without waiting for the clock where it can be avoided:
 * - after a crash: the queue's lease is 60 s and renewed while a handler
 *   runs; a message whose lease ran out is claimed again, one still leased is
 *   left alone;
 * - after a peer's outage: the circuit breaker the server is built with opens
 *   after 5 failures and lets a probe through 5 minutes later (Fedify's
 *   CircuitBreaker driven by a fake clock).
 */
import assert from "node:assert/strict";
import { CircuitBreaker, MemoryKvStore } from "@fedify/fedify";
import { sql } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";
import { createStores } from "../../federation/stores/mod.ts";
import { DEFAULT_LEASE_MS, SqlMessageQueue } from "../../federation/stores/sql_queue.ts";
import { CIRCUIT_BREAKER_OPTIONS } from "../../federation/outbox/circuit_breaker.ts";
import { startInstance, test } from "../harness.ts";
import { eventually } from "../fixtures/wait.ts";

/** Seconds until each test message's lease runs out (null: not claimed), by name. */
async function leases(database: Database): Promise<Map<string, number | null>> {
  const rows = await database.rows<{ name: string; seconds: number | null }>(sql`
    SELECT message->>'name' AS name,
      extract(epoch FROM locked_until - now())::float8 AS seconds
    FROM federation_queue WHERE message ? 'name'`);
  return new Map(rows.map((r) => [r.name, r.seconds == null ? null : Number(r.seconds)]));
}

/** Listens with a handler that runs until released. */
function blockedWorker(queue: { listen: SqlMessageQueue["listen"] }) {
  const controller = new AbortController();
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  const listening = queue.listen(async () => await held, { signal: controller.signal });
  return {
    async stop() {
      release();
      controller.abort();
      await listening;
    },
  };
}

test("security: delivery recovery after a crash (queue leases)", async (t) => {
  // A server without a queue worker: its database is free for these checks.
  const a = await startInstance({ worker: false });
  const database = a.rookery.ctx.database;
  const clear = () => database.rows(sql`DELETE FROM federation_queue WHERE message ? 'name'`);
  try {
    await t.step("a claimed delivery is leased for 60 s", async () => {
      assert.equal(DEFAULT_LEASE_MS, 60_000);
      // The queue exactly as the server builds it.
      const worker = blockedWorker(createStores(database).queue);
      await createStores(database).queue.enqueue({ name: "slow" });
      const seconds = await eventually("the message is claimed", async () => {
        const left = (await leases(database)).get("slow");
        return left != null && left;
      });
      assert.ok(seconds > 50 && seconds <= 60, `lease of ${seconds} s`);
      await worker.stop();
      await clear();
    });

    await t.step("the lease is renewed while the handler runs", async () => {
      // A short lease shows the renewal (every third of the lease) without a long wait.
      const queue = new SqlMessageQueue(database, { leaseMs: 3_000, pollMs: 50 });
      const worker = blockedWorker(queue);
      await queue.enqueue({ name: "long" });
      const first = await eventually("the message is claimed", async () => {
        const [row] = await database.rows<{ until: string | null }>(
          sql`SELECT locked_until::text AS until FROM federation_queue WHERE message ? 'name'`,
        );
        return row?.until;
      });
      await eventually("the lease is renewed", async () => {
        const [row] = await database.rows<{ renewed: boolean }>(sql`
          SELECT locked_until > ${first}::timestamptz AS renewed
          FROM federation_queue WHERE message ? 'name'`);
        return row?.renewed;
      });
      await worker.stop();
      await clear();
    });

    await t.step("a lease that ran out is taken again; a live one is not", async () => {
      // Another process's worker: no release of leases at start (as on PostgreSQL).
      const queue = new SqlMessageQueue(database, { pollMs: 50 });
      await queue.enqueue({ name: "live" });
      await queue.enqueue({ name: "crashed" });
      // A running worker holds "live"; the one that held "crashed" died a while ago.
      await database.rows(sql`UPDATE federation_queue SET locked_until = CASE message->>'name'
        WHEN 'live' THEN now() + interval '1 hour' ELSE now() - interval '1 second' END
        WHERE message ? 'name'`);
      const handled: string[] = [];
      const controller = new AbortController();
      const listening = queue.listen((message: { name?: string }) => {
        if (message.name) handled.push(message.name);
      }, { signal: controller.signal });
      await eventually(
        "the crashed message is handled",
        () => Promise.resolve(handled.includes("crashed")),
      );
      // "live" is older, so the claim would have taken it first had its lease not held it.
      assert.deepEqual(handled, ["crashed"]);
      const left = await leases(database);
      assert.deepEqual([...left.keys()], ["live"]);
      assert.ok(left.get("live")! > 3000);
      controller.abort();
      await listening;
      await clear();
    });

    await t.step("the federation is built with the circuit breaker options", () => {
      // Fedify keeps the breaker on the federation object (not a public API, so
      // this check goes if Fedify moves it; the next test checks the behaviour).
      const breaker = (a.rookery.ctx.federation as unknown as { circuitBreaker?: CircuitBreaker })
        .circuitBreaker;
      assert.ok(breaker, "the federation has a circuit breaker");
      assert.equal(breaker.options.recoveryDelay.total("second"), 300);
      assert.equal(breaker.options.releaseInterval.total("second"), 5);
    });
  } finally {
    await a.close({ destroy: true });
  }
});

test("security: a peer's open circuit lets a probe through after 5 minutes", async () => {
  let now = Temporal.Instant.from("2026-01-01T00:00:00Z");
  const breaker = new CircuitBreaker({
    kv: new MemoryKvStore(),
    prefix: ["circuit"],
    options: CIRCUIT_BREAKER_OPTIONS,
    now: () => now,
  });
  const host = "peer.example";
  const tick = (d: Temporal.DurationLike) => now = now.add(d);
  const decide = () => breaker.beforeSend(host, {});
  const heldFor = async () => {
    const decision = await decide();
    return decision.type === "hold" ? decision.delay.total("second") : decision.type;
  };

  for (let i = 0; i < 4; i++) {
    await breaker.recordFailure(host);
    tick({ seconds: 30 });
  }
  assert.equal((await decide()).type, "send", "four failures leave it closed");
  await breaker.recordFailure(host);
  assert.equal(await heldFor(), 300);
  tick({ seconds: 299 });
  assert.equal(await heldFor(), 1);
  tick({ seconds: 1 });
  assert.deepEqual(await decide(), {
    type: "send",
    probe: true,
    stateChange: { previousState: "open", newState: "half-open" },
  });
  // Others wait for the probe's answer, checking again every 5 s.
  assert.equal(await heldFor(), 5);

  // A failed probe closes the door for another 5 minutes...
  await breaker.recordFailure(host);
  assert.equal(await heldFor(), 300);
  // ...and a successful one opens it for everything held.
  tick({ minutes: 5 });
  assert.equal((await decide()).type, "send");
  await breaker.recordSuccess(host);
  assert.deepEqual(await decide(), { type: "send", probe: false });
});
