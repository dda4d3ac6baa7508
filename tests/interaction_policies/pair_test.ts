/**
 * Interaction policies between two Rookery instances (issue 34, design
 * §9.4). Alice's Note states her policy, so b enforces it too: bob's Like,
 * outside it, is refused on b (403, nothing sent); his reply, within manual
 * approval, is held on b and asked for with a ReplyRequest; a holds it too
 * (seen by bob's copy and alice only, not counted, `pending.reply`) until
 * alice authorizes it; then b receives the polite Accept, the reply stands
 * there with alice's authorization as its proof and goes out with it. A
 * rejected reply is discarded on both sides.
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import { call, callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import {
  arrived,
  closeAll,
  followRemote,
  startPair,
  storedStatus,
} from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";

test("two Rookery instances: a forbidden Like refused, replies asked for, authorized or rejected", async (t) => {
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
    const onB = await ok(b, bob, "GET", `/api/v1/statuses/${copy.id}`);
    assert.ok(onB.interaction_policy.can_reply.manual_approval.includes("public"));
    assert.equal(
      (await call(b, bob, "POST", `/api/v1/statuses/${copy.id}/favourite`)).status,
      403,
      "b enforces alice's policy",
    );
    const pendingOnA = async () => {
      const list = await ok(a, alice, "GET", "/api/v1/interaction_requests");
      return list.length ? list : null;
    };

    await t.step("a reply asked for, held on both sides, then authorized", async () => {
      const reply = await postStatus(b, bob, `@alice@${a.domain} may I?`, {
        in_reply_to_id: copy.id,
      });
      assert.equal((await storedStatus(b, reply.uri))?.pendingApproval, true);
      const held = await arrived(a, reply.uri, "the reply");
      assert.equal(held.pendingApproval, true);
      const shown = await ok(a, alice, "GET", `/api/v1/statuses/${post.id}`);
      assert.equal(shown.favourites_count, 0);
      assert.equal(shown.replies_count, 0, "the held reply is not counted");
      assert.equal((await callJson(a, null, "GET", `/api/v1/statuses/${held.id}`)).status, 404);
      const context = await ok(a, null, "GET", `/api/v1/statuses/${post.id}/context`);
      assert.deepEqual(context.descendants, []);
      const [pending] = await ok(a, alice, "GET", "/api/v1/notifications?types[]=pending.reply");
      assert.equal(pending.status.id, held.id);
      assert.equal(pending.account.acct, `bob@${b.domain}`);

      const [request] = await eventually("the request on a", pendingOnA);
      assert.equal(request.type, "reply");
      assert.equal(request.reply.uri, reply.uri);
      await ok(a, alice, "POST", `/api/v1/interaction_requests/${request.id}/authorize`);
      assert.equal((await ok(a, null, "GET", `/api/v1/statuses/${held.id}`)).uri, reply.uri);
      assert.equal((await ok(a, alice, "GET", `/api/v1/statuses/${post.id}`)).replies_count, 1);
      const approved = await eventually("the reply approved on b", async () => {
        const row = await storedStatus(b, reply.uri);
        return row && !row.pendingApproval ? row : null;
      });
      assert.equal(approved.approvedByUri, `${a.origin}/users/alice/authorizations/${request.id}`);
      const res = await a.request(approved.approvedByUri!, {
        headers: { Accept: "application/activity+json" },
      });
      assert.equal((await res.json()).type, "ReplyAuthorization");
    });

    await t.step("a reply rejected is discarded on both sides", async () => {
      const reply = await postStatus(b, bob, `@alice@${a.domain} and now?`, {
        in_reply_to_id: copy.id,
      });
      await arrived(a, reply.uri, "the second reply");
      const [request] = await eventually("the second request on a", pendingOnA);
      await ok(a, alice, "POST", `/api/v1/interaction_requests/${request.id}/reject`);
      await eventually(
        "the reply gone on b",
        async () => (await callJson(b, bob, "GET", `/api/v1/statuses/${reply.id}`)).status === 404,
      );
      assert.equal((await ok(a, alice, "GET", `/api/v1/statuses/${post.id}`)).replies_count, 1);
    });

    await t.step("a policy change reaches b with the Update, without an edit", async () => {
      await ok(a, alice, "PUT", `/api/v1/statuses/${post.id}/interaction_policy`, {
        interaction_policy: { can_favourite: { automatic_approval: ["public"] } },
      });
      await eventually("the new policy on b", async () => {
        const seen = await ok(b, bob, "GET", `/api/v1/statuses/${copy.id}`);
        return seen.interaction_policy.can_favourite.automatic_approval.includes("public");
      });
      await ok(b, bob, "POST", `/api/v1/statuses/${copy.id}/favourite`);
      await eventually(
        "bob's Like on a",
        async () =>
          (await ok(a, alice, "GET", `/api/v1/statuses/${post.id}`)).favourites_count === 1,
      );
    });
  } finally {
    await closeAll(a, b);
  }
});
