/**
 * Interactions reach the other server as signed activities over https: Like
 * and Undo(Like) to the remote author, Announce and Undo(Announce) to the
 * remote author (and followers), Add and Remove of a pin to remote followers.
 * What B's inbox received is read from the requests B served; deliveries
 * are awaited by polling (bounded), never by sleeping.
 */
import assert from "node:assert/strict";
import { createStatus } from "../../actors/statuses/create.ts";
import { follow } from "../../actors/relationships/follows.ts";
import { resolveRemoteAccount } from "../../federation/remote/accounts.ts";
import { test } from "../harness.ts";
import { closeAll, startPair } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { act, post } from "./helpers.ts";

type Activity = Record<string, any>;

test("Like, Announce, their Undo, and pins' Add/Remove are delivered", async (t) => {
  const received: Promise<Activity | null>[] = [];
  const { a, b } = await startPair({
    b: {
      onRequest(request) {
        if (request.method !== "POST" || !new URL(request.url).pathname.endsWith("/inbox")) return;
        received.push(request.clone().json().catch(() => null));
      },
    },
  });
  const activities = async () =>
    (await Promise.all(received)).filter((x): x is Activity => x != null);
  const arrived = (what: string, match: (x: Activity) => boolean) =>
    eventually(what, async () => (await activities()).find(match), 60_000);
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    const bobOnA = await resolveRemoteAccount(a.rookery.ctx, `bob@${b.domain}`);
    assert.ok(bobOnA);
    const original = await post(b, bob, "Hello from B");
    const statusUri = `${b.origin}/users/bob/statuses/${original}`;
    const onA = await createStatus(a.rookery.ctx, {
      local: false,
      accountId: bobOnA.id,
      uri: statusUri,
      content: "<p>Hello from B</p>",
      visibility: "public",
    });
    const aliceUri = `${a.origin}/users/alice`;

    await t.step("Like and Undo(Like) reach the author", async () => {
      await act(a, alice, onA.id, "favourite");
      const like = await arrived("Like", (x) => x.type === "Like");
      assert.equal(like.actor, aliceUri);
      assert.equal(like.object, statusUri);
      assert.match(like.id, new RegExp(`^${aliceUri}#likes/\\d+$`));
      await act(a, alice, onA.id, "unfavourite");
      const undo = await arrived(
        "Undo(Like)",
        (x) => x.type === "Undo" && x.object?.type === "Like",
      );
      assert.equal(undo.object.id, like.id);
      assert.equal(undo.actor, aliceUri);
    });

    await t.step("Announce and Undo(Announce) reach the author", async () => {
      const boost = await act(a, alice, onA.id, "reblog");
      const announce = await arrived("Announce", (x) => x.type === "Announce");
      assert.equal(announce.id, `${aliceUri}/statuses/${boost.id}/activity`);
      assert.equal(announce.actor, aliceUri);
      assert.equal(announce.object, statusUri);
      // Mastodon's shape: a list, and the public collection in full (federation/objects/wire_shape.ts).
      assert.deepEqual(announce.to, ["https://www.w3.org/ns/activitystreams#Public"]);
      assert.ok([announce.cc].flat().includes(bobOnA.uri));
      assert.ok(announce.published);
      await act(a, alice, onA.id, "unreblog");
      const undo = await arrived(
        "Undo(Announce)",
        (x) => x.type === "Undo" && x.object?.type === "Announce",
      );
      assert.equal(undo.object.id, announce.id);
    });

    await t.step("pins are announced to remote followers as Add and Remove", async () => {
      const aliceOnB = await resolveRemoteAccount(b.rookery.ctx, `alice@${a.domain}`);
      assert.ok(aliceOnB);
      await follow(b.rookery.ctx, bob.id, aliceOnB.id);
      await eventually("bob follows alice on A", async () => {
        const res = await a.request(`/api/v1/accounts/${alice.id}/followers`);
        return (await res.json()).length === 1;
      });
      const mine = await post(a, alice, "Pin me");
      await act(a, alice, mine, "pin");
      const add = await arrived("Add", (x) => x.type === "Add");
      assert.equal(add.actor, aliceUri);
      assert.equal(add.object, `${aliceUri}/statuses/${mine}`);
      assert.equal(add.target, `${aliceUri}/collections/featured`);
      await act(a, alice, mine, "unpin");
      const remove = await arrived("Remove", (x) => x.type === "Remove");
      assert.equal(remove.object, add.object);
      assert.equal(remove.target, add.target);
    });
  } finally {
    await closeAll(a, b);
  }
});
