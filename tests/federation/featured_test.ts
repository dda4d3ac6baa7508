/**
 * The featured collection lists pinned public and unlisted posts as Notes,
 * newest pin first; private pins stay out of it. A peer's featured
 * collection whose items are `Create` activities (issue 30, item 12) pins
 * their objects: embedded ones as they are, referenced ones fetched by their
 * own id, and the activities' ids are never fetched.
 */
import assert from "node:assert/strict";
import { json, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { startFakePeer } from "../fixtures/fake_peer.ts";
import { eventually } from "../fixtures/wait.ts";
import { AP_ACCEPT } from "./helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";

test("featured collection: pinned public posts as Notes, private pins left out", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const older = await postStatus(a, alice, "first pin");
    const hidden = await postStatus(a, alice, "followers only", { visibility: "private" });
    const newer = await postStatus(a, alice, "second pin", { visibility: "unlisted" });
    for (const s of [older, hidden, newer]) {
      await ok(a, alice, "POST", `/api/v1/statuses/${s.id}/pin`);
    }
    const res = await a.request("/users/alice/collections/featured", {
      headers: { Accept: AP_ACCEPT },
    });
    assert.equal(res.status, 200);
    const featured = await json(res);
    assert.equal(featured.type, "OrderedCollection");
    assert.equal(featured.totalItems, 2);
    assert.deepEqual(featured.orderedItems.map((n: { id: string }) => n.id), [
      newer.uri,
      older.uri,
    ]);
    assert.equal(featured.orderedItems[0].type, "Note");
    assert.match(featured.orderedItems[1].content, /first pin/);
  } finally {
    await a.close({ destroy: true });
  }
});

test("a peer's featured collection of Create activities pins their objects", async () => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  try {
    const viewer = await createUser(rookery, "viewer");
    const blogger = peer.actor("blogger");
    const featured = `${blogger}/featured`;
    const post = (n: number) => ({
      id: `${blogger}/posts/${n}`,
      type: "Note",
      attributedTo: blogger,
      content: `<p>pinned ${n}</p>`,
      to: ["https://www.w3.org/ns/activitystreams#Public"],
    });
    peer.publishActor("blogger", { featured });
    peer.serve("/users/blogger/posts/2", { "@context": AS, ...post(2) });
    // The activities' own ids are not served (as on such servers): fetching one is a 404.
    peer.serve("/users/blogger/featured", {
      "@context": AS,
      id: featured,
      type: "OrderedCollection",
      totalItems: 2,
      orderedItems: [
        { id: `${blogger}/posts/1/activity`, type: "Create", actor: blogger, object: post(1) },
        {
          id: `${blogger}/posts/2/activity`,
          type: "Create",
          actor: blogger,
          object: `${blogger}/posts/2`,
        },
      ],
    });
    const q = encodeURIComponent(blogger);
    const found = await ok(rookery, viewer, "GET", `/api/v2/search?q=${q}&resolve=true`);
    const id = found.accounts[0].id;
    const pinned = await eventually("the Creates' objects pinned", async () => {
      const list = await ok(rookery, viewer, "GET", `/api/v1/accounts/${id}/statuses?pinned=true`);
      return list.length === 2 && list;
    });
    assert.deepEqual(
      pinned.map((s: { uri: string }) => s.uri).sort(),
      [`${blogger}/posts/1`, `${blogger}/posts/2`],
    );
    assert.equal(peer.hits("/users/blogger/posts/1/activity"), 0, "no fetch of an activity");
    assert.equal(peer.hits("/users/blogger/posts/2/activity"), 0, "no fetch of an activity");
    assert.equal(peer.hits("/users/blogger/posts/1"), 0, "the embedded object is not fetched");
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
