/**
 * /settings/interaction_requests over HTTP: the held interactions of one's
 * posts with who asked, the post and the held reply; Approve and Reject
 * through the forms (form token required); someone else's request, or one
 * already decided, is 404; the settings gate keeps anonymous visitors out.
 */
import assert from "node:assert/strict";
import { afterAll, startInstance, test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { includes, signInOverHttp } from "../admin_web/http_session.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));
const alice = await createUser(instance, "alice");
const bob = await createUser(instance, "bob");
const carol = await createUser(instance, "carol");
const PAGE = "/settings/interaction_requests";

test("the page lists held interactions and decides them through its forms", async () => {
  const post = await postStatus(instance, alice, "my own words", {
    interaction_policy: { can_reply: { automatic_approval: [], manual_approval: ["public"] } },
  });
  const reply = await postStatus(instance, bob, "@alice a held thought", {
    in_reply_to_id: post.id,
  });
  const session = await signInOverHttp(instance, "alice", PAGE);
  const page = await session.get(PAGE);
  assert.equal(page.status, 200);
  const html = await page.text();
  includes(html, "@bob</strong> wants to reply to");
  includes(html, "my own words");
  includes(html, "a held thought");
  const [request] = await ok(instance, alice, "GET", "/api/v1/interaction_requests");

  const tokenless = await session.post(`${PAGE}/${request.id}/authorize`, {
    authenticity_token: "",
  });
  await tokenless.body?.cancel();
  assert.equal(tokenless.status, 403);
  const bobs = await signInOverHttp(instance, "bob", PAGE);
  const foreign = await bobs.post(`${PAGE}/${request.id}/authorize`);
  await foreign.body?.cancel();
  assert.equal(foreign.status, 404);
  assert.equal(
    (await callJson(instance, carol, "GET", `/api/v1/statuses/${reply.id}`)).status,
    404,
  );

  const approved = await session.post(`${PAGE}/${request.id}/authorize`);
  await approved.body?.cancel();
  assert.equal(approved.status, 303);
  assert.equal(approved.headers.get("location"), `${PAGE}?notice=authorized`);
  assert.equal((await ok(instance, carol, "GET", `/api/v1/statuses/${reply.id}`)).id, reply.id);
  const again = await session.post(`${PAGE}/${request.id}/reject`);
  await again.body?.cancel();
  assert.equal(again.status, 404, "decided");
  includes(await (await session.get(`${PAGE}?notice=authorized`)).text(), "Nothing is waiting");

  const anonymous = await instance.request(PAGE, { redirect: "manual" });
  await anonymous.body?.cancel();
  assert.notEqual(anonymous.status, 200);
});

test("/settings/interactions: presets per visibility, a custom policy kept, reset", async () => {
  const dave = await createUser(instance, "dave");
  const path = "/api/v1/interaction_policies/defaults";
  const session = await signInOverHttp(instance, "dave", "/settings/interactions");
  const page = await (await session.get("/settings/interactions")).text();
  includes(page, '<select id="public[can_reply]" name="public[can_reply]">');
  includes(page, '<option value="anyone" selected>Anyone</option>');
  assert.ok(!page.includes('name="direct[can_quote]"'), "no quote choice for direct messages");
  assert.ok(!page.includes('value="custom"'), "every built-in policy is a preset");

  const saved = await session.post("/settings/interactions", {
    "public[can_reply]": "followers_ask",
    "private[can_favourite]": "followers",
  });
  await saved.body?.cancel();
  assert.equal(saved.status, 303);
  const after = await ok(instance, dave, "GET", path);
  assert.deepEqual(after.public.can_reply, {
    automatic_approval: ["followers", "mentioned", "author"],
    manual_approval: ["public"],
  });
  assert.deepEqual(after.private.can_favourite.automatic_approval, [
    "followers",
    "mentioned",
    "author",
  ]);
  assert.deepEqual(after.public.can_favourite.automatic_approval, ["public"], "unchanged");

  // A policy no preset describes survives a save of the form as shown.
  const bobUri = `${instance.origin}/users/bob`;
  await ok(instance, dave, "PATCH", path, {
    public: { can_reply: { automatic_approval: [bobUri], manual_approval: [] } },
  });
  const custom = await (await session.get("/settings/interactions")).text();
  includes(custom, '<option value="custom" selected>Custom (set by an app)</option>');
  const kept = await session.post("/settings/interactions", { "public[can_reply]": "custom" });
  await kept.body?.cancel();
  assert.deepEqual((await ok(instance, dave, "GET", path)).public.can_reply.automatic_approval, [
    bobUri,
    "author",
    "mentioned",
  ]);
  const reset = await session.post("/settings/interactions/reset");
  await reset.body?.cancel();
  assert.deepEqual((await ok(instance, dave, "GET", path)).public.can_reply.automatic_approval, [
    "public",
  ]);
  const tokenless = await session.post("/settings/interactions", { authenticity_token: "" });
  await tokenless.body?.cancel();
  assert.equal(tokenless.status, 403);
});
