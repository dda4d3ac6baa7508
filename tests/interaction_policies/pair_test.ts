/**
 * Interaction policies between two Rookery instances (issue 34), the
 * receiving side: a peer that does not know the policy (our Notes do not
 * state it yet: federation is the next part) sends its plain Like and
 * Create; outside the policy the Like is not stored, within manual approval
 * the reply is held on our side (seen by its author's copy and our user
 * only, not counted, `pending.reply`) until our user authorizes it.
 * Activities of one actor are applied in order, so the reply arriving
 * proves the Like before it was handled.
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { arrived, closeAll, followRemote, startPair } from "../fixtures/federation.ts";

test("a policy-unaware peer: its forbidden Like is dropped, its reply held until authorized", async () => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    await followRemote(b, bob, a, alice);
    const post = await postStatus(a, alice, "ask before replying", {
      interaction_policy: {
        can_reply: { automatic_approval: ["author"], manual_approval: ["public"] },
        can_favourite: { automatic_approval: ["author"], manual_approval: [] },
      },
    });
    const copy = await arrived(b, post.uri);

    // On b nothing is known of the policy: both are done there.
    await ok(b, bob, "POST", `/api/v1/statuses/${copy.id}/favourite`);
    const reply = await postStatus(b, bob, `@alice@${a.domain} may I?`, {
      in_reply_to_id: copy.id,
    });
    const held = await arrived(a, reply.uri, "the reply");
    assert.equal(held.pendingApproval, true);

    const shown = await ok(a, alice, "GET", `/api/v1/statuses/${post.id}`);
    assert.equal(shown.favourites_count, 0, "the Like was not stored");
    assert.equal(shown.replies_count, 0, "the held reply is not counted");
    assert.equal((await callJson(a, null, "GET", `/api/v1/statuses/${held.id}`)).status, 404);
    const context = await ok(a, null, "GET", `/api/v1/statuses/${post.id}/context`);
    assert.deepEqual(context.descendants, []);
    const [pending] = await ok(a, alice, "GET", "/api/v1/notifications?types[]=pending.reply");
    assert.equal(pending.status.id, held.id);
    assert.equal(pending.account.acct, `bob@${b.domain}`);

    const [request] = await ok(a, alice, "GET", "/api/v1/interaction_requests");
    assert.equal(request.type, "reply");
    assert.equal(request.reply.uri, reply.uri);
    await ok(a, alice, "POST", `/api/v1/interaction_requests/${request.id}/authorize`);
    assert.equal((await ok(a, null, "GET", `/api/v1/statuses/${held.id}`)).uri, reply.uri);
    assert.equal((await ok(a, alice, "GET", `/api/v1/statuses/${post.id}`)).replies_count, 1);
  } finally {
    await closeAll(a, b);
  }
});
