/**
 * Favourites and boosts under a status's interaction policy (issue 34), on
 * one instance: outside the policy → 403 with GoToSocial's sentence; within
 * manual approval → 200, held (not counted, not listed, the boost seen by
 * its author and the boosted author only), a `pending.*` notification and
 * an interaction request; the author authorizes (the interaction counts,
 * the boost reaches the booster's followers) or rejects it (gone); taking
 * it back withdraws the request. The requests API: list, filters and their
 * 400, paging, one, someone else's → 404, decided → 404 for the POSTs.
 * The policy is written straight into the status row here.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { statuses } from "../../db/schema/mod.ts";
import type { StoredPolicy } from "../../model/interaction_policy.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { callJson, links, ok, postStatus } from "../fixtures/api.ts";
import { createToken, createUser } from "../fixtures/users.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;
const alice = await createUser(instance, "alice");
const bob = await createUser(instance, "bob");
const carol = await createUser(instance, "carol");
const dave = await createUser(instance, "dave");
// Dave follows Bob: Bob's boosts reach Dave's home once approved.
await ok(instance, dave, "POST", `/api/v1/accounts/${bob.id}/follow`);
// Carol follows Alice: followers may act at once under the policy below.
await ok(instance, carol, "POST", `/api/v1/accounts/${alice.id}/follow`);

/** Followers at once, anyone else with Alice's approval. */
const ASK: StoredPolicy = {
  can_favourite: { automatic: ["followers", "author"], manual: ["public"] },
  can_reblog: { automatic: ["followers", "author"], manual: ["public"] },
};

async function postWith(policy: StoredPolicy, text: string) {
  const post = await postStatus(instance, alice, text);
  await db.update(statuses).set({ interactionPolicy: policy }).where(eq(statuses.id, post.id));
  return post;
}

async function notificationsOf(who: { token: string }, type: string) {
  const list = await ok(instance, who, "GET", `/api/v1/notifications?types[]=${type}`);
  return list as { type: string; account: { id: string }; status: { id: string } | null }[];
}

test("outside the policy: 403 with GoToSocial's sentence, nothing written", async () => {
  const post = await postWith({
    can_favourite: { automatic: ["followers", "author"], manual: [] },
    can_reblog: { automatic: ["author"], manual: [] },
  }, "followers only");
  const fave = await callJson(instance, bob, "POST", `/api/v1/statuses/${post.id}/favourite`);
  assert.equal(fave.status, 403);
  assert.deepEqual(fave.body, { error: "You do not have permission to favourite this status" });
  const boost = await callJson(instance, carol, "POST", `/api/v1/statuses/${post.id}/reblog`);
  assert.equal(boost.status, 403);
  assert.deepEqual(boost.body, { error: "You do not have permission to reblog this status" });
  const shown = await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}`);
  assert.equal(shown.favourites_count, 0);
  assert.equal(shown.reblogs_count, 0);
  // A follower may favourite at once.
  assert.equal(
    (await ok(instance, carol, "POST", `/api/v1/statuses/${post.id}/favourite`)).favourites_count,
    1,
  );
});

test("a held favourite: 200, not counted, pending.favourite; authorized, it counts", async () => {
  const post = await postWith(ASK, "ask me");
  const held = await ok(instance, bob, "POST", `/api/v1/statuses/${post.id}/favourite`);
  assert.equal(held.favourited, true);
  assert.equal(held.favourites_count, 0);
  const [pending] = await notificationsOf(alice, "pending.favourite");
  assert.equal(pending.account.id, bob.id);
  assert.equal(pending.status!.id, post.id);

  const list = await ok(
    instance,
    alice,
    "GET",
    `/api/v1/interaction_requests?status_id=${post.id}`,
  );
  assert.equal(list.length, 1);
  const [request] = list;
  assert.equal(request.type, "favourite");
  assert.equal(request.account.id, bob.id);
  assert.equal(request.status.id, post.id);
  assert.ok(!("reply" in request) && !("accepted_at" in request) && !("rejected_at" in request));
  assert.deepEqual(
    await ok(instance, alice, "GET", `/api/v1/interaction_requests/${request.id}`),
    request,
  );

  // Someone else's request is not found, for reading or deciding.
  for (const [method, path] of [["GET", ""], ["POST", "/authorize"], ["POST", "/reject"]]) {
    const res = await callJson(
      instance,
      bob,
      method,
      `/api/v1/interaction_requests/${request.id}${path}`,
    );
    assert.equal(res.status, 404, `${method} ${path}`);
    assert.deepEqual(res.body, { error: "Record not found" });
  }

  const accepted = await ok(
    instance,
    alice,
    "POST",
    `/api/v1/interaction_requests/${request.id}/authorize`,
  );
  assert.equal(accepted.id, request.id);
  assert.ok(Date.parse(accepted.accepted_at) > 0);
  assert.ok(!("rejected_at" in accepted));
  assert.equal(
    (await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}`)).favourites_count,
    1,
  );
  const by = await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}/favourited_by`);
  assert.deepEqual(by.map((a: { id: string }) => a.id), [bob.id]);
  assert.deepEqual(await notificationsOf(alice, "pending.favourite"), [], "retracted");
  const faves = await notificationsOf(alice, "favourite");
  assert.ok(!faves.some((n) => n.account.id === bob.id), "no second notice to the approver");
  // Decided: no second decision; still readable.
  const again = await callJson(
    instance,
    alice,
    "POST",
    `/api/v1/interaction_requests/${request.id}/reject`,
  );
  assert.equal(again.status, 404);
  assert.ok(
    (await ok(instance, alice, "GET", `/api/v1/interaction_requests/${request.id}`)).accepted_at,
  );
  assert.deepEqual(await ok(instance, alice, "GET", "/api/v1/interaction_requests"), []);
});

test("a held boost: seen by two, not fanned out; authorized it reaches the followers, rejected it is gone", async () => {
  const post = await postWith(ASK, "boost me, maybe");
  const boost = await ok(instance, bob, "POST", `/api/v1/statuses/${post.id}/reblog`);
  assert.equal(boost.reblog.id, post.id);
  assert.equal(boost.reblogged, true);
  assert.equal((await callJson(instance, dave, "GET", `/api/v1/statuses/${boost.id}`)).status, 404);
  const [pending] = await notificationsOf(alice, "pending.reblog");
  // As for `reblog` notifications, the status shown is the boosted one.
  assert.equal(pending.status!.id, post.id);
  assert.equal(pending.account.id, bob.id);
  const [request] = await ok(
    instance,
    alice,
    "GET",
    "/api/v1/interaction_requests?favourites=false",
  );
  assert.equal(request.type, "reblog");
  assert.equal(request.status.id, post.id);
  const home = await ok(instance, dave, "GET", "/api/v1/timelines/home");
  assert.ok(
    !home.some((s: { id: string }) => s.id === boost.id),
    "not in a follower's home while held",
  );

  await ok(instance, alice, "POST", `/api/v1/interaction_requests/${request.id}/authorize`);
  assert.equal((await ok(instance, dave, "GET", `/api/v1/statuses/${boost.id}`)).id, boost.id);
  assert.equal((await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}`)).reblogs_count, 1);
  const after = await ok(instance, dave, "GET", "/api/v1/timelines/home");
  assert.ok(
    after.some((s: { id: string }) => s.id === boost.id),
    "in a follower's home once approved",
  );

  // Carol is a follower and boosts at once; a stranger's boost is rejected.
  const other = await postWith(ASK, "another");
  const second = await ok(instance, dave, "POST", `/api/v1/statuses/${other.id}/reblog`);
  const [asked] = await ok(
    instance,
    alice,
    "GET",
    `/api/v1/interaction_requests?status_id=${other.id}`,
  );
  const rejected = await ok(
    instance,
    alice,
    "POST",
    `/api/v1/interaction_requests/${asked.id}/reject`,
  );
  assert.ok(Date.parse(rejected.rejected_at) > 0);
  assert.equal(
    (await callJson(instance, dave, "GET", `/api/v1/statuses/${second.id}`)).status,
    404,
  );
  const shown = await ok(instance, dave, "GET", `/api/v1/statuses/${other.id}`);
  assert.equal(shown.reblogged, false);
  assert.equal(shown.reblogs_count, 0);
  assert.deepEqual(await notificationsOf(alice, "pending.reblog"), []);
});

test("taking back a held favourite or boost withdraws its request", async () => {
  const post = await postWith(ASK, "changed my mind");
  await ok(instance, bob, "POST", `/api/v1/statuses/${post.id}/favourite`);
  await ok(instance, bob, "POST", `/api/v1/statuses/${post.id}/reblog`);
  assert.equal(
    (await ok(instance, alice, "GET", `/api/v1/interaction_requests?status_id=${post.id}`)).length,
    2,
  );
  const unfaved = await ok(instance, bob, "POST", `/api/v1/statuses/${post.id}/unfavourite`);
  assert.equal(unfaved.favourited, false);
  const unboosted = await ok(instance, bob, "POST", `/api/v1/statuses/${post.id}/unreblog`);
  assert.equal(unboosted.reblogged, false);
  assert.deepEqual(
    await ok(instance, alice, "GET", `/api/v1/interaction_requests?status_id=${post.id}`),
    [],
  );
  assert.deepEqual(await notificationsOf(alice, "pending.favourite"), []);
  const shown = await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}`);
  assert.equal(shown.favourites_count, 0);
  assert.equal(shown.reblogs_count, 0);
});

test("the list: filters, the 400, paging with the filters kept, scopes", async () => {
  const post = await postWith(ASK, "many");
  for (const who of [bob, dave]) {
    await ok(instance, who, "POST", `/api/v1/statuses/${post.id}/favourite`);
  }
  await ok(instance, bob, "POST", `/api/v1/statuses/${post.id}/reblog`);
  const none = await callJson(
    instance,
    alice,
    "GET",
    "/api/v1/interaction_requests?favourites=false&replies=false&reblogs=false",
  );
  assert.equal(none.status, 400);
  assert.deepEqual(none.body, {
    error: "At least one of favourites, replies or reblogs must be true",
  });
  const faves = await ok(
    instance,
    alice,
    "GET",
    `/api/v1/interaction_requests?reblogs=false&status_id=${post.id}`,
  );
  assert.deepEqual(faves.map((r: { type: string }) => r.type), ["favourite", "favourite"]);

  const first = await callJson(
    instance,
    alice,
    "GET",
    `/api/v1/interaction_requests?status_id=${post.id}&limit=2`,
  );
  assert.equal(first.body.length, 2);
  const next = links(first.headers.get("link")).next;
  assert.equal(next.searchParams.get("status_id"), post.id);
  const rest = await ok(instance, alice, "GET", next.pathname + next.search);
  assert.equal(rest.length, 1);
  assert.equal(rest[0].account.id, bob.id);
  assert.equal(rest[0].type, "favourite");

  const readOnly = await createToken(instance, alice.userId, ["read:notifications"]);
  assert.equal(
    (await callJson(instance, readOnly, "GET", "/api/v1/interaction_requests")).status,
    200,
  );
  const refused = await callJson(
    instance,
    readOnly,
    "POST",
    `/api/v1/interaction_requests/${rest[0].id}/authorize`,
  );
  assert.equal(refused.status, 403);
  const noRead = await createToken(instance, alice.userId, ["read:statuses"]);
  assert.equal(
    (await callJson(instance, noRead, "GET", "/api/v1/interaction_requests")).status,
    403,
  );
});

test("pending.* notifications carry Mastodon 4.6's fallback for apps that do not list them", async () => {
  const post = await postWith(ASK, "favourite, and wait");
  await ok(instance, bob, "POST", `/api/v1/statuses/${post.id}/favourite`);
  const [plain] = await ok(
    instance,
    alice,
    "GET",
    "/api/v1/notifications?types[]=pending.favourite&supported_types[]=mention",
  );
  assert.equal(plain.type, "pending.favourite");
  assert.match(plain.fallback.title, /^<a href="[^"]+">@bob<\/a> wants to favourite your post/);
  assert.equal(plain.fallback.description, null);
  const [knowing] = await ok(
    instance,
    alice,
    "GET",
    "/api/v1/notifications?types[]=pending.favourite&supported_types[]=pending.favourite",
  );
  assert.equal(knowing.fallback, undefined);
});
