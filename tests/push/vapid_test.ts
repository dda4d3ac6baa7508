/**
 * The VAPID key is one per server, kept in the database: it survives a
 * restart, and (PostgreSQL) two processes that make it at the same moment
 * end up with the same one, which both show and sign with.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import {
  createTestDatabase,
  POSTGRES_ONLY,
  startInstance,
  test,
  TEST_DATABASE_URL,
  type TestInstance,
} from "../harness.ts";
import { callJson } from "../fixtures/api.ts";

async function serverKey(instance: TestInstance): Promise<string> {
  const res = await callJson(instance, null, "GET", "/api/v2/instance");
  assert.equal(res.status, 200);
  return res.body.configuration.vapid.public_key;
}

test("the VAPID key survives a restart", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-vapid-" });
  // On PostgreSQL both runs use one database, made (and dropped) here.
  const database = TEST_DATABASE_URL ? await createTestDatabase() : null;
  const options = { dataDir, memory: false, worker: false, databaseUrl: database?.url };
  try {
    const first = await startInstance(options);
    let key: string;
    try {
      key = await serverKey(first);
    } finally {
      await first.close();
    }
    const again = await startInstance(options);
    try {
      assert.equal(await serverKey(again), key);
    } finally {
      await again.close();
    }
  } finally {
    await database?.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});

test("two processes that make the VAPID key at once agree on one", POSTGRES_ONLY, async () => {
  const first = await startInstance({ worker: false });
  const second = await startInstance({ worker: false, databaseUrl: first.databaseUrl! });
  try {
    const [a, b] = await Promise.all([serverKey(first), serverKey(second)]);
    assert.equal(a, b);
    const rows = await first.rookery.ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM key_pairs WHERE owner = 'vapid'`,
    );
    assert.equal(rows[0].n, 1);
  } finally {
    await second.close();
    await first.close({ destroy: true });
  }
});
