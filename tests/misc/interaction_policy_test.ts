/**
 * PUT /api/v1/statuses/:id/interaction_policy (Mastodon 4.5): who may quote
 * one's own status changes without an edit, shows in `quote_approval`, and
 * reaches a follower's server as an Update of the Note, which applies it.
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import {
  arrived,
  closeAll,
  followRemote,
  startPair,
  storedStatus,
} from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";

test("interaction policy: changed, shown, refused for others, federated as an Update", async () => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const mallory = await createUser(a, "mallory");
    const bob = await createUser(b, "bob");
    await followRemote(b, bob, a, alice);

    const post = await postStatus(a, alice, "quote me, or not", { visibility: "public" });
    assert.deepEqual(post.quote_approval.automatic, ["public"]);
    const copy = await arrived(b, post.uri);
    assert.equal(copy.quoteApprovalPolicy, "public");

    const path = `/api/v1/statuses/${post.id}/interaction_policy`;
    const changed = await ok(a, alice, "PUT", path, { quote_approval_policy: "followers" });
    assert.equal(changed.id, post.id);
    assert.deepEqual(changed.quote_approval.automatic, ["followers"]);
    assert.equal(changed.edited_at, null, "not an edit");
    const history = await ok<any[]>(a, alice, "GET", `/api/v1/statuses/${post.id}/history`);
    assert.equal(history.length, 1, "no new version");
    const shown = await ok(a, mallory, "GET", `/api/v1/statuses/${post.id}`);
    assert.deepEqual(shown.quote_approval, {
      automatic: ["followers"],
      manual: [],
      current_user: "denied",
    });

    // The follower's server applies the Update (no edit there either).
    await eventually(
      "policy on b",
      async () => (await storedStatus(b, post.uri))?.quoteApprovalPolicy === "followers",
    );
    assert.equal((await storedStatus(b, post.uri))!.editedAt, null);

    // PATCH and form bodies work too; nobody.
    const res = await a.request(path, {
      method: "PATCH",
      headers: {
        Authorization: `Bearer ${alice.token}`,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: "quote_approval_policy=nobody",
    });
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).quote_approval.automatic, []);
    await eventually(
      "nobody on b",
      async () => (await storedStatus(b, post.uri))?.quoteApprovalPolicy === "nobody",
    );

    // Invalid or missing value: 422; someone else's or unknown status: 404.
    for (const body of [{ quote_approval_policy: "everyone" }, {}]) {
      const bad = await callJson(a, alice, "PUT", path, body);
      assert.equal(bad.status, 422);
      assert.match(bad.body.error, /^Validation failed: Quote approval policy/);
    }
    const theirs = await callJson(a, mallory, "PUT", path, { quote_approval_policy: "public" });
    assert.equal(theirs.status, 404);
    assert.deepEqual(theirs.body, { error: "Record not found" });
    const unknown = await callJson(a, alice, "PUT", "/api/v1/statuses/999999/interaction_policy", {
      quote_approval_policy: "public",
    });
    assert.equal(unknown.status, 404);
    assert.equal(
      (await ok(a, alice, "GET", `/api/v1/statuses/${post.id}`)).quote_approval.automatic.length,
      0,
      "unchanged by the refused requests",
    );

    // A private status stays quotable by nobody else, whatever is asked.
    const priv = await postStatus(a, alice, "followers only", { visibility: "private" });
    const privChanged = await ok(
      a,
      alice,
      "PUT",
      `/api/v1/statuses/${priv.id}/interaction_policy`,
      {
        quote_approval_policy: "public",
      },
    );
    assert.deepEqual(privChanged.quote_approval.automatic, []);

    const readOnly = await createUser(a, "reader", { scopes: ["read"] });
    assert.equal(
      (await callJson(a, readOnly, "PUT", path, { quote_approval_policy: "public" })).status,
      403,
    );
  } finally {
    await closeAll(a, b);
  }
});
