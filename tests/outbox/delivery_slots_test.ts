/**
 * A peer that never answers holds its own deliveries, not the other peers'
 * nor inbound activities (federation/stores/delivery_lane.ts): deliveries
 * run on slots of their own, a few per host. Two fake peers
 * (tests/fixtures/fake_peer.ts) each host a follower of alice; the first
 * holds every delivery until the test lets go. Once it holds more
 * deliveries than the queue has slots for inbound work, a new post still
 * reaches the second peer, an activity from the second peer is still
 * stored, and the first peer holds no more than its share. Let go, it gets
 * every post (none lost, none given up on).
 */
import assert from "node:assert/strict";
import { newId } from "../../db/ids.ts";
import { accounts, follows } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { type FakePeer, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { arrived } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";

/** More posts than the queue has slots for inbound activities and jobs (8). */
const HELD_POSTS = 10;

/** Records the bodies a peer's shared inbox gets; `hold` keeps each request unanswered until `release`. */
function sharedInbox(peer: FakePeer, hold: boolean) {
  const bodies: string[] = [];
  let pending = 0;
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  peer.route("/inbox", async (request) => {
    bodies.push(await request.text());
    if (hold) {
      pending++;
      await released;
      pending--;
    }
    return new Response(null, { status: 202 });
  });
  return {
    received: (marker: string) => bodies.filter((b) => b.includes(marker)).length,
    pending: () => pending,
    release,
  };
}

/** A remote account on `peer` following `target`, delivered to through the peer's shared inbox. */
async function follower(
  database: { db: any },
  peer: FakePeer,
  name: string,
  target: string,
): Promise<void> {
  const id = newId();
  const uri = peer.publishActor(name, { endpoints: { sharedInbox: `${peer.origin}/inbox` } });
  await database.db.insert(accounts).values({
    id,
    username: name,
    domain: new URL(peer.origin).host,
    uri,
    inboxUrl: `${uri}/inbox`,
    sharedInboxUrl: `${peer.origin}/inbox`,
  });
  await database.db.insert(follows).values({ id: newId(), accountId: id, targetAccountId: target });
}

test("a peer holding its deliveries does not hold other peers' nor inbound activities", async () => {
  const rookery = await startInstance();
  const stuck = await startFakePeer();
  const healthy = await startFakePeer();
  const held = sharedInbox(stuck, true);
  const open = sharedInbox(healthy, false);
  try {
    const alice = await createUser(rookery, "alice");
    const database = rookery.rookery.ctx.database;
    await follower(database, stuck, "slowfan", alice.id);
    await follower(database, healthy, "fan", alice.id);
    const perHost = rookery.rookery.ctx.config.deliveries.perHost;
    assert.ok(perHost < HELD_POSTS);

    for (let n = 0; n < HELD_POSTS; n++) await postStatus(rookery, alice, `held post ${n}`);
    await eventually(
      "the first peer to hold its share",
      () => Promise.resolve(held.pending() >= perHost),
    );
    await eventually(
      "the second peer to have the same posts",
      () => Promise.resolve(open.received("held post") === HELD_POSTS),
    );

    // Later work, while every delivery to the first peer is still held.
    await postStatus(rookery, alice, "marker post");
    await eventually(
      "the marker post at the second peer",
      () => Promise.resolve(open.received("marker post") === 1),
    );
    const note = `${healthy.actor("fan")}/statuses/1`;
    const answer = await healthy.deliver(`${rookery.origin}/inbox`, {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${note}/activity`,
      type: "Create",
      actor: healthy.actor("fan"),
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      object: {
        id: note,
        type: "Note",
        attributedTo: healthy.actor("fan"),
        content: "<p>still heard</p>",
        to: ["https://www.w3.org/ns/activitystreams#Public"],
        published: new Date().toISOString(),
      },
    }, {
      keyId: `${healthy.actor("fan")}#main-key`,
      send: (request) => rookery.request(request.url, request),
    });
    assert.equal(await statusOf(answer), 202);
    await arrived(rookery, note, "the second peer's note");
    // The first peer holds its share of the delivery slots, no more.
    assert.equal(held.pending(), perHost);

    held.release();
    await eventually(
      "every post at the first peer",
      () =>
        Promise.resolve(held.received("held post") >= HELD_POSTS && held.received("marker post")),
    );
  } finally {
    held.release();
    await stuck.close();
    await healthy.close();
    await rookery.close({ destroy: true });
  }
});
