/**
 * Interaction policies through the statuses API (issue 34), one instance:
 * `interaction_policy` on POST (JSON and form, GoToSocial's older names),
 * PUT and PUT …/interaction_policy (not an edit), the 422s, `can_quote` and
 * `quote_approval_policy` in step; replies under a policy: forbidden (403),
 * held (200 with the note, invisible to others, not counted, pending.reply,
 * authorized → counted, in the follower's home, mentions notified but not to
 * the approver; rejected → gone for everyone), approved implicitly by a
 * favourite of the approver, withdrawn by deleting it; a remote reply held
 * the same way; default policies (GET, PATCH with reset of the rest, new
 * posts take them, `source[quote_policy]` in step).
 */
import assert from "node:assert/strict";
import { afterAll, startInstance, test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));
const alice = await createUser(instance, "alice");
const bob = await createUser(instance, "bob");
const carol = await createUser(instance, "carol");
const dave = await createUser(instance, "dave");
// Dave follows Bob and Alice: Bob's replies to Alice reach Dave's home once approved.
await ok(instance, dave, "POST", `/api/v1/accounts/${bob.id}/follow`);
await ok(instance, dave, "POST", `/api/v1/accounts/${alice.id}/follow`);
await ok(instance, carol, "POST", `/api/v1/accounts/${alice.id}/follow`);

const rules = (automatic: string[], manual: string[] = []) => ({
  automatic_approval: automatic,
  manual_approval: manual,
});
/** Followers reply at once, anyone else with approval. */
const ASK_REPLIES = { can_reply: rules(["followers"], ["public"]) };

test("POST takes interaction_policy as JSON or form, fills the rest, refuses what cannot be", async () => {
  const post = await postStatus(instance, alice, "json", { interaction_policy: ASK_REPLIES });
  assert.deepEqual(post.interaction_policy.can_reply, {
    automatic_approval: ["followers", "author", "mentioned", "me"],
    manual_approval: ["public"],
  });
  assert.deepEqual(post.interaction_policy.can_favourite, rules(["public", "me"]), "the default");
  const form = new URLSearchParams([
    ["status", "form"],
    ["interaction_policy[can_reblog][always][0]", "followers"],
    ["interaction_policy[can_quote][automatic_approval][]", "followers"],
  ]);
  const formed = await (await instance.request("/api/v1/statuses", {
    method: "POST",
    headers: {
      Authorization: `Bearer ${alice.token}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: form.toString(),
  })).json();
  assert.deepEqual(formed.interaction_policy.can_reblog, rules(["followers", "author", "me"]));
  assert.deepEqual(formed.interaction_policy.can_quote, rules(["followers", "author", "me"]));
  assert.deepEqual(formed.quote_approval.automatic, ["followers"], "the quote word in step");

  // Mastodon's quote word is the same setting.
  const nobody = await postStatus(instance, alice, "word", { quote_approval_policy: "nobody" });
  assert.deepEqual(nobody.interaction_policy.can_quote, rules(["author", "me"]));
  assert.deepEqual(nobody.quote_approval.automatic, []);

  const refusals: [Record<string, unknown>, string][] = [
    [{ can_reply: rules(["me"]) }, 'can_reply.automatic_approval: unknown value "me"'],
    [
      { can_reblog: rules([], ["public"]) },
      'can_reblog.manual_approval: "public" is not possible for private posts',
    ],
    [
      { can_favourite: rules(["mailto:x@y"]) },
      "can_favourite.automatic_approval: not an account IRI",
    ],
    [{ can_quote: rules([], ["public"]) }, "can_quote.manual_approval: not supported"],
  ];
  for (const [policy, reason] of refusals) {
    const refused = await callJson(instance, alice, "POST", "/api/v1/statuses", {
      status: "no",
      visibility: "private",
      interaction_policy: policy,
    });
    assert.equal(refused.status, 422, reason);
    assert.deepEqual(refused.body, { error: `Validation failed: Interaction policy ${reason}` });
  }
});

test("a reply outside the policy is refused, nothing written", async () => {
  const post = await postStatus(instance, alice, "followers only", {
    interaction_policy: { can_reply: rules(["followers"]) },
  });
  const refused = await callJson(instance, bob, "POST", "/api/v1/statuses", {
    status: "may I?",
    in_reply_to_id: post.id,
  });
  assert.equal(refused.status, 403);
  assert.deepEqual(refused.body, { error: "You do not have permission to reply to this status" });
  assert.equal(
    (await postStatus(instance, carol, "a follower", { in_reply_to_id: post.id })).in_reply_to_id,
    post.id,
  );
  assert.equal((await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}`)).replies_count, 1);
});

test("a held reply: hidden and uncounted; authorized it is distributed, rejected it is gone", async () => {
  const post = await postStatus(instance, alice, "ask first", { interaction_policy: ASK_REPLIES });
  const reply = await postStatus(instance, bob, "@alice @carol hello", { in_reply_to_id: post.id });
  assert.match(reply.content, /Waiting for @alice to approve this reply/);
  assert.equal(
    (await callJson(instance, carol, "GET", `/api/v1/statuses/${reply.id}`)).status,
    404,
  );
  assert.equal((await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}`)).replies_count, 0);
  const home = await ok(instance, dave, "GET", "/api/v1/timelines/home");
  assert.ok(!home.some((s: { id: string }) => s.id === reply.id));
  const carolMentions = await ok(instance, carol, "GET", "/api/v1/notifications?types[]=mention");
  assert.ok(!carolMentions.some((n: any) => n.status.id === reply.id), "no mention while held");
  const [pending] = await ok(instance, alice, "GET", "/api/v1/notifications?types[]=pending.reply");
  assert.equal(pending.status.id, reply.id);
  assert.match(pending.status.content, /This reply is waiting for your approval/);
  const [request] = await ok(
    instance,
    alice,
    "GET",
    `/api/v1/interaction_requests?status_id=${post.id}`,
  );
  assert.equal(request.type, "reply");
  assert.equal(request.reply.id, reply.id);

  await ok(instance, alice, "POST", `/api/v1/interaction_requests/${request.id}/authorize`);
  const shown = await ok(instance, carol, "GET", `/api/v1/statuses/${reply.id}`);
  assert.equal(
    shown.content,
    reply.content.replace(/<p><em>Waiting.*$/, ""),
    "no note once approved",
  );
  assert.equal((await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}`)).replies_count, 1);
  const after = await ok(instance, dave, "GET", "/api/v1/timelines/home");
  assert.ok(
    after.some((s: { id: string }) => s.id === reply.id),
    "in the replier's follower's home",
  );
  const mentions = await ok(instance, carol, "GET", "/api/v1/notifications?types[]=mention");
  assert.ok(mentions.some((n: any) => n.status.id === reply.id), "a third party mentioned is told");
  const aliceMentions = await ok(instance, alice, "GET", "/api/v1/notifications?types[]=mention");
  assert.ok(!aliceMentions.some((n: any) => n.status.id === reply.id), "not the approver");
  assert.deepEqual(
    await ok(instance, alice, "GET", "/api/v1/notifications?types[]=pending.reply"),
    [],
  );

  const second = await postStatus(instance, bob, "@alice again", { in_reply_to_id: post.id });
  const [asked] = await ok(
    instance,
    alice,
    "GET",
    `/api/v1/interaction_requests?status_id=${post.id}`,
  );
  await ok(instance, alice, "POST", `/api/v1/interaction_requests/${asked.id}/reject`);
  for (const who of [alice, bob, carol]) {
    assert.equal(
      (await callJson(instance, who, "GET", `/api/v1/statuses/${second.id}`)).status,
      404,
    );
  }
  assert.equal((await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}`)).replies_count, 1);
});

test("the approver's favourite approves a held reply; deleting one withdraws it", async () => {
  const post = await postStatus(instance, alice, "ask again", { interaction_policy: ASK_REPLIES });
  const reply = await postStatus(instance, bob, "@alice hi", { in_reply_to_id: post.id });
  const faved = await ok(instance, alice, "POST", `/api/v1/statuses/${reply.id}/favourite`);
  assert.equal(faved.favourites_count, 1);
  assert.equal((await ok(instance, carol, "GET", `/api/v1/statuses/${reply.id}`)).id, reply.id);
  assert.equal((await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}`)).replies_count, 1);

  const other = await postStatus(instance, bob, "@alice never mind", { in_reply_to_id: post.id });
  await ok(instance, bob, "DELETE", `/api/v1/statuses/${other.id}`);
  assert.deepEqual(
    await ok(instance, alice, "GET", `/api/v1/interaction_requests?status_id=${post.id}`),
    [],
  );
  assert.deepEqual(
    await ok(instance, alice, "GET", "/api/v1/notifications?types[]=pending.reply"),
    [],
  );
  assert.equal((await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}`)).replies_count, 1);
});

test("PUT …/interaction_policy changes the policy without an edit; PUT edits keep it", async () => {
  const post = await postStatus(instance, alice, "open for now");
  const path = `/api/v1/statuses/${post.id}/interaction_policy`;
  const changed = await ok(instance, alice, "PUT", path, { interaction_policy: ASK_REPLIES });
  assert.deepEqual(changed.interaction_policy.can_reply.manual_approval, ["public"]);
  assert.equal(changed.edited_at, null);
  const reply = await postStatus(instance, bob, "@alice held?", { in_reply_to_id: post.id });
  assert.equal(
    (await callJson(instance, carol, "GET", `/api/v1/statuses/${reply.id}`)).status,
    404,
  );
  // Mastodon's own form still works and leaves the rest alone.
  const quoted = await ok(instance, alice, "PUT", path, { quote_approval_policy: "nobody" });
  assert.deepEqual(quoted.interaction_policy.can_quote, rules(["author", "me"]));
  assert.deepEqual(quoted.interaction_policy.can_reply.manual_approval, ["public"]);
  const edited = await ok(instance, alice, "PUT", `/api/v1/statuses/${post.id}`, {
    status: "edited",
  });
  assert.deepEqual(edited.interaction_policy.can_reply.manual_approval, ["public"]);
  const refused = await callJson(instance, bob, "PUT", path, { interaction_policy: ASK_REPLIES });
  assert.equal(refused.status, 404);
});

test("default policies: the built-ins, PATCH resets the rest, new posts take them", async () => {
  const path = "/api/v1/interaction_policies/defaults";
  const built = await ok(instance, dave, "GET", path);
  assert.deepEqual(Object.keys(built), ["direct", "private", "unlisted", "public"]);
  assert.deepEqual(built.private.can_reply, rules(["author", "followers", "mentioned"]));
  assert.deepEqual(built.direct.can_reblog, rules(["author"]));
  assert.deepEqual(built.public.can_quote, rules(["public"]));

  const saved = await ok(instance, dave, "PATCH", path, {
    public: { can_reply: rules(["followers"], ["public"]), can_quote: rules(["followers"]) },
  });
  assert.deepEqual(saved.public.can_reply, rules(["followers", "author", "mentioned"], ["public"]));
  assert.deepEqual(saved.public.can_favourite, rules(["public"]));
  const creds = await ok(instance, dave, "GET", "/api/v1/accounts/verify_credentials");
  assert.equal(creds.source.quote_policy, "followers", "the quote word in step");
  const post = await postStatus(instance, dave, "with my defaults");
  assert.deepEqual(post.interaction_policy.can_reply.manual_approval, ["public"]);
  assert.deepEqual(post.quote_approval.automatic, ["followers"]);

  const refused = await callJson(instance, dave, "PATCH", path, {
    private: { can_reply: rules(["public"]) },
  });
  assert.equal(refused.status, 422);
  assert.match(
    refused.body.error,
    /^Validation failed: Interaction policy private\.can_reply\.automatic_approval: "public" is not possible/,
  );
  assert.deepEqual(
    (await ok(instance, dave, "GET", path)).public.can_reply,
    saved.public.can_reply,
    "unchanged",
  );

  const reset = await ok(instance, dave, "PATCH", path, { unlisted: null });
  assert.deepEqual(reset.public.can_reply, rules(["public"]), "left out: back to the built-in");
});
