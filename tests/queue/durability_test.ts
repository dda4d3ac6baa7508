/**
 * Nothing queued is lost when a process is killed: not a message waiting in
 * the queue, and not one a worker was in the middle of handling (a kill
 * counts as one takeover of it, whatever the database). A message whose
 * handling is cut off every time is dropped after its takeovers, and the
 * queue goes on. Real child processes, really killed with SIGKILL, on the
 * real database.
 */
import assert from "node:assert/strict";
import { type ChildScript, spawnScript } from "../fixtures/server_process.ts";
import { createTestDatabase, DB_KIND, test } from "../harness.ts";

const CHILD = new URL("../fixtures/queue_child.ts", import.meta.url).pathname;

function spawn(args: string[], env: Record<string, string>): ChildScript {
  return spawnScript(CHILD, { args, env });
}

async function databaseEnv(): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  if (DB_KIND === "postgres") {
    const db = await createTestDatabase();
    return { env: { DATABASE_URL: db.url }, cleanup: db.drop };
  }
  const dir = await Deno.makeTempDir({ prefix: "rookery-queue-" });
  return {
    env: { PGLITE_DIR: dir },
    cleanup: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

test("a message enqueued before a kill is delivered after restart", async () => {
  const { env, cleanup } = await databaseEnv();
  try {
    const producer = spawn(["enqueue", "first"], env);
    await producer.waitFor("enqueued");
    await producer.kill();

    const consumer = spawn(["drain"], env);
    assert.equal(await consumer.waitFor("done"), "done first");
    await consumer.kill();
  } finally {
    await cleanup();
  }
});

test("a message whose worker was killed mid-handling is handled again", async () => {
  const { env, cleanup } = await databaseEnv();
  try {
    const producer = spawn(["enqueue", "second"], env);
    await producer.waitFor("enqueued");
    await producer.kill();

    // A short lease so that, on PostgreSQL, another worker may take the
    // message soon after the first one dies (PGlite releases it at start).
    // Two takeovers allowed: the kill must count one, not two.
    const leaseEnv = { ...env, LEASE_MS: "1500", MAX_TAKEOVERS: "2" };
    const stuck = spawn(["hang"], leaseEnv);
    assert.equal(await stuck.waitFor("got"), "got second");
    await stuck.kill();

    const consumer = spawn(["drain"], leaseEnv);
    assert.equal(await consumer.waitFor("done"), "done second");
    await consumer.kill();
  } finally {
    await cleanup();
  }
});

test("a message whose handling is cut off every time is dropped after its takeovers", async () => {
  const { env, cleanup } = await databaseEnv();
  const leaseEnv = { ...env, LEASE_MS: "1500", MAX_TAKEOVERS: "2" };
  try {
    const producer = spawn(["enqueue", "fatal"], env);
    await producer.waitFor("enqueued");
    await producer.kill();
    // Every worker that takes it dies with it (a crash-every-time message).
    for (let run = 0; run < 2; run++) {
      const crashing = spawn(["hang"], leaseEnv);
      assert.equal(await crashing.waitFor("got"), "got fatal");
      await crashing.kill();
    }
    const later = spawn(["enqueue", "later"], env);
    await later.waitFor("enqueued");
    await later.kill();

    // Taken over twice: the next claim drops it, and the queue goes on.
    const consumer = spawn(["drain"], leaseEnv);
    assert.equal(await consumer.waitFor("done"), "done later");
    await consumer.kill();
  } finally {
    await cleanup();
  }
});
