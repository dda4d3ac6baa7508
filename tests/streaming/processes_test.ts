/**
 * Across processes (PostgreSQL only): a status posted through a second
 * server process (main.ts, ROLE=web, on the same database) reaches a socket
 * held by the test's instance, and the other way round; the second process
 * shuts down cleanly with a socket still open.
 */
import assert from "node:assert/strict";
import { POSTGRES_ONLY, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { startServer } from "../fixtures/server_process.ts";
import { WsClient } from "./helpers.ts";

test("streaming across processes", POSTGRES_ONLY, async (t) => {
  const instance = await startInstance({ listen: true });
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-stream-" });
  const second = await startServer({
    ROLE: "web",
    DATABASE_URL: instance.databaseUrl!,
    DATA_DIR: dataDir,
    ORIGIN: instance.origin,
    // Both processes answer for one public origin, as behind a load
    // balancer; the test reaches the second one with the public host in
    // X-Forwarded-Host (a client cannot set Host itself).
    TRUST_PROXY: "true",
  });
  const sockets: WsClient[] = [];
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    await ok(instance, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    // The second process, as a client reaches it through the balancer.
    const forwarded = { "x-forwarded-host": instance.domain, "x-forwarded-proto": "http" };
    const other = {
      ...instance,
      origin: second.origin,
      request(path: string, init: RequestInit = {}) {
        const headers = new Headers(init.headers);
        for (const [name, value] of Object.entries(forwarded)) headers.set(name, value);
        return fetch(new URL(path, second.origin), { ...init, headers });
      },
    };

    await t.step("a post made by the second process reaches this one's socket", async () => {
      const ws = await WsClient.open(
        instance,
        `/api/v1/streaming?stream=user&access_token=${bob.token}`,
      );
      sockets.push(ws);
      const status = await postStatus(other, alice, "From the other process");
      const frame = await ws.next("update", "user");
      assert.deepEqual(
        JSON.parse(frame.payload!),
        await ok(instance, bob, "GET", `/api/v1/statuses/${status.id}`),
      );
    });

    await t.step("and a post made here reaches the second process's socket", async () => {
      const ws = await WsClient.open(
        other,
        `/api/v1/streaming?stream=user&access_token=${bob.token}`,
        undefined,
        forwarded,
      );
      sockets.push(ws);
      const status = await postStatus(instance, alice, "From the test process");
      const frame = await ws.next("update", "user");
      assert.equal(JSON.parse(frame.payload!).id, status.id);
    });

    await t.step("the second process stops cleanly with a socket open", async () => {
      const ws = sockets[1];
      const status = await second.stop();
      assert.equal(status.code, 0);
      await ws.closed;
    });
  } finally {
    for (const ws of sockets) await ws.close();
    await second.stop().catch(() => {});
    await instance.close({ destroy: true });
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
