/**
 * A process that dies between the commit of a post and the enqueue of its
 * Create loses nothing: the restarted instance relays the intent at start and
 * the follower's server gets the post. The instance runs in a child process
 * (tests/fixtures/outbox_child.ts) that exits the moment the Create reaches
 * the queue, and is then started again on the same data and port.
 */
import assert from "node:assert/strict";
import { and, eq, like } from "drizzle-orm";
import { statuses } from "../../db/schema/mod.ts";
import { restartableChild } from "../fixtures/crash_children.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { closeAll, followRemote, remoteId } from "../fixtures/federation.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const CHILD = new URL("../fixtures/outbox_child.ts", import.meta.url).pathname;

/** What the parent needs of the child instance to federate with it through fixtures. */
function childInstance(origin: string): TestInstance {
  return {
    origin,
    domain: new URL(origin).host,
    request: (path: string, init?: RequestInit) => fetch(new URL(path, origin), init),
  } as unknown as TestInstance;
}

test("a post whose process died between commit and enqueue is delivered after restart", async () => {
  const b = await startInstance({ tls: true });
  const child = await restartableChild(CHILD);
  try {
    const first = child.spawn({ USERS: "alice", CRASH_ON_CREATE: "1" });
    const [alice] = JSON.parse((await first.waitFor("users ")).slice(6)) as TestUser[];
    await first.waitFor("ready");
    const a = childInstance(child.origin);
    const bob = await createUser(b, "bob");
    await followRemote(b, bob, a, alice);

    // The post commits; the process dies as its Create is handed to the queue.
    const text = `survives a crash ${crypto.randomUUID()}`;
    await a.request("/api/v1/statuses", {
      method: "POST",
      headers: { Authorization: `Bearer ${alice.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ status: text }),
    }).then((res) => res.body?.cancel(), () => {/* the process died first */});
    assert.equal((await first.status).code, 137, "died at the enqueue of the Create");

    const aliceOnB = await remoteId(b, a, alice);
    const onB = () =>
      b.rookery.ctx.database.db.select().from(statuses)
        .where(and(eq(statuses.accountId, aliceOnB), like(statuses.content, `%${text}%`)));
    assert.deepEqual(await onB(), [], "nothing left before the crash");

    const second = child.spawn();
    await second.waitFor("ready");
    const [row] = await eventually(
      "the post on B after the restart",
      async () => (await onB()).length ? await onB() : null,
      60_000,
    );
    assert.ok(row.uri.startsWith(a.origin));
  } finally {
    await child.close();
    await closeAll(b);
  }
});
