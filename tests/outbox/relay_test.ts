/**
 * The transactional outbox between two instances over HTTP: a delivery whose
 * enqueue fails is kept and retried until it arrives, and an intent relayed
 * twice (a crash after the enqueue, before the intent's delete) reaches the
 * receiver with the same activity ids, so it keeps one status.
 *
 * The queue is made to fail from the database (a trigger on
 * federation_queue), so the same test runs against any version of the code:
 * before the outbox, the failed enqueue was only logged and the Create lost.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import {
  arrived,
  closeAll,
  followRemote,
  startPair,
  storedStatus,
} from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

interface Received {
  id?: string;
  type?: string;
  object?: string | { id?: string };
}

test("deliveries survive a failing queue and a second relay", async (t) => {
  // Every activity B's inboxes receive, as delivered.
  const received: Promise<Received | null>[] = [];
  const { a, b } = await startPair({
    b: {
      onRequest: (request) => {
        if (request.method !== "POST" || !new URL(request.url).pathname.endsWith("/inbox")) return;
        received.push(request.clone().json().catch(() => null));
      },
    },
  });
  const deliveredTo = async (type: string, objectId: string) =>
    (await Promise.all(received)).filter((r): r is Received =>
      r?.type === type &&
      (typeof r.object === "string" ? r.object : r.object?.id) === objectId
    );
  try {
    const alice = await createUser(a, "alice");
    const carol = await createUser(a, "carol");
    const bob = await createUser(b, "bob");
    await followRemote(b, bob, a, alice);
    const rows = <T>(query: ReturnType<typeof sql>) => a.rookery.ctx.database.rows<T>(query);

    await t.step("a Create whose enqueue failed arrives once the queue works again", async () => {
      await rows(sql`CREATE FUNCTION test_refuse_enqueue() RETURNS trigger LANGUAGE plpgsql
        AS $$ BEGIN RAISE EXCEPTION 'test: the queue refuses'; END $$`);
      await rows(sql`CREATE TRIGGER test_refuse_enqueue BEFORE INSERT ON federation_queue
        FOR EACH ROW EXECUTE FUNCTION test_refuse_enqueue()`);
      const posted = await callJson(a, alice, "POST", "/api/v1/statuses", {
        status: "posted while the queue refuses",
      });
      assert.equal(posted.status, 200);
      // The post is committed whatever the queue does.
      assert.equal(
        (await callJson(a, alice, "GET", `/api/v1/statuses/${posted.body.id}`)).status,
        200,
      );
      // The relay tried, failed, and kept the intent for a retry.
      await eventually("the failed relay", async () => {
        const [intent] = await rows<{ attempts: number }>(sql`SELECT attempts FROM outbox_intents
          WHERE method = 'statusCreated' AND args->>0 = ${posted.body.id}`);
        return intent && intent.attempts >= 1;
      });
      assert.equal(await storedStatus(b, posted.body.uri), undefined);
      await rows(sql`DROP TRIGGER test_refuse_enqueue ON federation_queue`);
      await rows(sql`DROP FUNCTION test_refuse_enqueue()`);
      await arrived(b, posted.body.uri, "the Create retried after the failure");
      assert.deepEqual(await rows(sql`SELECT id FROM outbox_intents`), []);
    });

    await t.step("the same intents relayed twice: one status, the same activity ids", async () => {
      // Keep what the relay deletes, to hand it over again as if the process
      // had died after the enqueue and before the delete.
      await rows(sql`CREATE TABLE test_relayed AS SELECT * FROM outbox_intents WITH NO DATA`);
      await rows(sql`CREATE FUNCTION test_keep_relayed() RETURNS trigger LANGUAGE plpgsql
        AS $$ BEGIN INSERT INTO test_relayed SELECT OLD.*; RETURN OLD; END $$`);
      await rows(sql`CREATE TRIGGER test_keep_relayed AFTER DELETE ON outbox_intents
        FOR EACH ROW EXECUTE FUNCTION test_keep_relayed()`);
      const posted = await callJson(a, alice, "POST", "/api/v1/statuses", {
        status: "which one?",
        poll: { options: ["this", "that"], expires_in: 3600 },
      });
      assert.equal(posted.status, 200);
      const uri: string = posted.body.uri;
      await arrived(b, uri);
      // A vote of a local account: Update(Question) to alice's followers.
      const voted = await callJson(a, carol, "POST", `/api/v1/polls/${posted.body.poll.id}/votes`, {
        choices: [0],
      });
      assert.equal(voted.status, 200);
      await eventually("the Update on B", async () => (await deliveredTo("Update", uri)).length);
      // The queue may deliver before the relay's delete commits, so wait for
      // both intents to be deleted rather than reading once.
      const relayedMethods = async () =>
        (await rows<{ method: string }>(sql`SELECT method FROM test_relayed`))
          .map((r) => r.method).sort();
      await eventually(
        "both intents relayed and deleted",
        async () => (await relayedMethods()).length >= 2,
      );
      assert.deepEqual(await relayedMethods(), ["pollUpdated", "statusCreated"]);

      await rows(sql`DROP TRIGGER test_keep_relayed ON outbox_intents`);
      await rows(sql`INSERT INTO outbox_intents (id, method, args)
        SELECT id, method, args FROM test_relayed`);
      await a.rookery.outboxRelay.relay();
      await eventually(
        "the second Create and Update on B",
        async () =>
          (await deliveredTo("Create", uri)).length >= 2 &&
          (await deliveredTo("Update", uri)).length >= 2,
      );
      const creates = await deliveredTo("Create", uri);
      const updates = await deliveredTo("Update", uri);
      assert.equal(new Set(creates.map((c) => c.id)).size, 1, "one Create id");
      assert.equal(new Set(updates.map((u) => u.id)).size, 1, "one Update id");
      const [{ n }] = await b.rookery.ctx.database.rows<{ n: number }>(
        sql`SELECT count(*)::int AS n FROM statuses WHERE uri = ${uri}`,
      );
      assert.equal(n, 1);
    });
  } finally {
    await closeAll(a, b);
  }
});
