/**
 * Inbound activities in their order, whatever the race (federation/inbox/order.ts,
 * federation/inbox/early_deletes.ts). A fake peer (tests/fixtures/fake_peer.ts)
 * fires pairs at one instance at the same moment, round after round:
 * Create+Delete of a note, Like+Undo and Announce+Undo of a local post,
 * Follow+Undo of a local account, and a Delete whose Create comes right
 * after it. Whichever of a pair the inbox accepts first, the end is what the
 * peer meant: no note, no favourite, no boost, no follower.
 *
 * The wait is a marker: a last Create by the same actor. Its activities are
 * applied in order, so once the marker is stored every pair before it has
 * been applied.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
/** Enough rounds that every kind of pair loses its race on a server that does not order them. */
const ROUNDS = 12;

test("pairs sent at the same moment end as the peer meant them", async () => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  const actor = peer.publishActor("racer", { followers: `${peer.origin}/users/racer/followers` });
  const send = (request: Request) => rookery.request(request.url, request);
  const inbox = `${rookery.origin}/inbox`;
  const deliver = async (activity: Record<string, unknown>) => {
    const body = { "@context": AS, actor, ...activity };
    const res = await peer.deliver(inbox, body, { keyId: `${actor}#main-key`, send });
    assert.equal(await statusOf(res), 202, `${activity.type} ${activity.id}`);
  };
  /** Both at once: which one the inbox takes first is up to the race. */
  const pair = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    Promise.all([deliver(a), deliver(b)]);
  const note = (id: string) => ({
    id,
    type: "Note",
    attributedTo: actor,
    to: [PUBLIC],
    content: `<p>${id}</p>`,
    published: new Date().toISOString(),
  });
  const create = (id: string) => ({
    id: `${id}/activity`,
    type: "Create",
    to: [PUBLIC],
    object: note(id),
  });
  const remove = (id: string) => ({
    id: `${id}#delete`,
    type: "Delete",
    to: [PUBLIC],
    object: { id, type: "Tombstone" },
  });
  const undo = (inner: Record<string, unknown>) => ({
    id: `${inner.id}/undo`,
    type: "Undo",
    object: { ...inner, actor },
  });
  const alice = await createUser(rookery, "alice");
  try {
    const post = await postStatus(rookery, alice, "race me");
    const aliceUri = `${rookery.origin}/users/alice`;
    // One delivery alone first: @fedify/postgres makes its table on first
    // use, and two first uses at once collide (a fresh server's problem, not
    // this test's).
    const first = `${actor}/notes/first`;
    await deliver(create(first));
    for (let round = 0; round < ROUNDS; round++) {
      const like = { id: `${actor}/likes/${round}`, type: "Like", object: post.uri };
      const boost = {
        id: `${actor}/announces/${round}`,
        type: "Announce",
        to: [PUBLIC],
        object: post.uri,
      };
      const follow = { id: `${actor}/follows/${round}`, type: "Follow", object: aliceUri };
      const created = `${actor}/notes/pair-${round}`;
      await Promise.all([
        pair(create(created), remove(created)),
        pair(like, undo(like)),
        pair(boost, undo(boost)),
        pair(follow, undo(follow)),
        (async () => {
          // The Delete is accepted first; the Create comes right after it.
          const late = `${actor}/notes/late-${round}`;
          await deliver(remove(late));
          await deliver(create(late));
        })(),
      ]);
    }
    const marker = `${actor}/notes/marker`;
    await deliver(create(marker));
    const stored = await eventually("the marker", () => storedStatus(rookery, marker), 120_000);

    // Everything at once, so a failure names every kind of pair that lost its race.
    const read = (path: string) => ok(rookery, alice, "GET", path);
    const target = await read(`/api/v1/statuses/${post.id}`);
    const uris = (list: { uri: string }[]) => list.map((s) => s.uri);
    const ids = (list: { id: string }[]) => list.map((a) => a.id);
    assert.deepEqual({
      notes: uris(await read(`/api/v1/accounts/${stored.accountId}/statuses?limit=40`)),
      favourites: target.favourites_count,
      favouritedBy: ids(await read(`/api/v1/statuses/${post.id}/favourited_by`)),
      boosts: target.reblogs_count,
      boostedBy: ids(await read(`/api/v1/statuses/${post.id}/reblogged_by`)),
      followers: ids(await read(`/api/v1/accounts/${alice.id}/followers`)),
      followersCount: (await read("/api/v1/accounts/verify_credentials")).followers_count,
    }, {
      notes: [marker, first],
      favourites: 0,
      favouritedBy: [],
      boosts: 0,
      boostedBy: [],
      followers: [],
      followersCount: 0,
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
