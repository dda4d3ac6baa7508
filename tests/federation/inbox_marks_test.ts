/**
 * Replay protection of inbound activities, now read by the statement that
 * claims an inbox message and written by the one that deletes it
 * (federation/stores/inbox_marks.ts) instead of by two statements of
 * Fedify's key–value store:
 * - a handled activity is marked processed for a day, under Fedify's key;
 * - the same signed activity delivered again is not handled again (its
 *   note, removed meanwhile, does not come back), whether it arrives once
 *   the first is done or right behind it in its sender's line;
 * - what the store is asked for other keys is still the store's.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { publicNoteCreate, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { arrived, storedStatus } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";
import { federationQueue, statuses } from "../../db/schema/mod.ts";
import { InboxMarks, markKeyOf } from "../../federation/stores/inbox_marks.ts";

const DAY_MS = 24 * 3600_000;

test("inbox marks: a handled activity is marked, and its replay is not handled", async (t) => {
  const rookery = await startInstance({ listen: true });
  const peer = await startFakePeer();
  const actor = peer.publishActor("remy", { followers: `${peer.origin}/users/remy/followers` });
  const { database } = rookery.rookery.ctx;
  const db = database.db;
  const send = (request: Request) => rookery.request(request.url, request);
  const deliver = async (activity: Record<string, unknown>) => {
    const inbox = `${rookery.origin}/inbox`;
    const res = await peer.deliver(inbox, activity, { keyId: `${actor}#main-key`, send });
    assert.equal(await statusOf(res), 202);
  };
  const create = (name: string) =>
    publicNoteCreate(actor, `${actor}/notes/${name}`, { content: `<p>${name}</p>` });
  /** Once the sender's queued activities are all handled. */
  const handled = () =>
    eventually("the sender's activities handled", async () => {
      const rows = await db.select({ id: federationQueue.id }).from(federationQueue)
        .where(eq(federationQueue.orderingKey, `inbox:${actor}`));
      return rows.length === 0;
    });
  /** The mark's time left, ms; null when there is none. */
  const markLeft = async (activityId: string): Promise<number | null> => {
    const key = ["_fedify", "activityIdempotence", rookery.origin, activityId];
    const [row] = rookery.databaseUrl
      ? await database.rows<{ ms: number }>(sql`SELECT (extract(epoch FROM created + ttl - now())
          * 1000)::float8 AS ms FROM fedify_kv_v2
          WHERE key = ARRAY[${key[0]}::text, ${key[1]}::text, ${key[2]}::text, ${key[3]}::text]`)
      : await database.rows<{ ms: number }>(sql`SELECT (extract(epoch FROM expires_at - now())
          * 1000)::float8 AS ms FROM federation_kv WHERE key = ${JSON.stringify(key)}`);
    return row ? Number(row.ms) : null;
  };
  /** Removes a stored note outright (no tombstone), as if it had never come. */
  const forget = async (uri: string) => {
    const row = await storedStatus(rookery, uri);
    assert.ok(row, `${uri} was stored`);
    await db.delete(statuses).where(eq(statuses.id, row.id));
  };
  try {
    await t.step("a handled activity is marked processed for a day", async () => {
      const one = create("one");
      await deliver(one);
      await arrived(rookery, one.object.id);
      await handled();
      const left = await markLeft(one.id);
      assert.ok(left != null, "the activity is marked");
      assert.ok(left > DAY_MS - 600_000 && left <= DAY_MS, `marked for ${left} ms`);
    });

    await t.step("delivered again once handled: not handled again", async () => {
      const one = create("one");
      await forget(one.object.id);
      await deliver(one);
      // The sender's next activity is handled after the replay (one line per sender).
      const two = create("two");
      await deliver(two);
      await arrived(rookery, two.object.id);
      assert.equal(await storedStatus(rookery, one.object.id), undefined);
    });

    await t.step("a copy right behind its original: handled once", async () => {
      const three = create("three");
      const four = create("four");
      // Three deliveries at once: the copy is queued behind the original and
      // taken by the statement that finishes it (or claimed after it).
      await Promise.all([deliver(three), deliver(three), deliver(four)]);
      await arrived(rookery, four.object.id);
      await handled();
      const rows = await db.select({ id: statuses.id }).from(statuses)
        .where(eq(statuses.uri, three.object.id));
      assert.equal(rows.length, 1);
      assert.ok(await markLeft(three.id) != null);
      // Removed, then delivered again: the copy's handling did not unmark it.
      await forget(three.object.id);
      await deliver(three);
      const five = create("five");
      await deliver(five);
      await arrived(rookery, five.object.id);
      assert.equal(await storedStatus(rookery, three.object.id), undefined);
    });
  } finally {
    await peer.close();
    await rookery.close();
  }
});

test("inbox marks: the copy claimed by its original's delete counts as marked", () => {
  const marks = new InboxMarks("federation_kv");
  const message = (id: string) => ({
    type: "inbox",
    baseUrl: "https://here.example",
    activity: { id, actor: "https://there.example/users/a" },
  });
  const first = message("https://there.example/a/1");
  const key = markKeyOf(first)!;
  const ttl = Temporal.Duration.from({ days: 1 });
  // The original: unmarked when claimed; Fedify's write is held for the delete.
  marks.expect(first, false);
  assert.equal(marks.known(key), false);
  assert.equal(marks.hold(key, true, { ttl }), true);
  const held = marks.settle(first);
  assert.deepEqual(held, { key, ttlMs: DAY_MS });
  // Its copy, claimed by the statement that writes that mark (and so cannot see it).
  marks.expect(message("https://there.example/a/1"), false, held);
  assert.equal(marks.known(key), true);
  assert.equal(marks.settle(first), null, "nothing held: Fedify did not handle it");
  // Another activity claimed by that statement is not taken for it.
  const other = message("https://there.example/a/2");
  marks.expect(other, false, held);
  assert.equal(marks.known(markKeyOf(other)!), false);
  // Keys written otherwise than Fedify reads them are left to the store.
  assert.equal(markKeyOf(message("https://THERE.example/a/3")), null);
  assert.equal(markKeyOf({ ...first, baseUrl: "https://here.example/" }), null);
  assert.equal(marks.hold(["_fedify", "activityIdempotence", "x", "y"], true, { ttl }), false);
});
