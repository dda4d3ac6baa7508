/**
 * Interactions waiting for approval (issue 34, design §4): a held reply or
 * boost is seen only by its author and by the author of what it replies to
 * or boosts; it is not in anyone's context, profile, public timeline, the
 * replies collection, `reblogged_by`, nor are held favourites in
 * `favourited_by`. The two who see a held reply read a note after its
 * content. The rows are marked held directly in the database: this
 * file checks the readers, whatever command marks them.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { favourites, statuses } from "../../db/schema/mod.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;
const alice = await createUser(instance, "alice");
const bob = await createUser(instance, "bob");
const carol = await createUser(instance, "carol");
const post = await postStatus(instance, alice, "who may answer?");

async function hold(statusId: string) {
  await db.update(statuses).set({ pendingApproval: true }).where(eq(statuses.id, statusId));
}

test("a held reply is seen by its author and the replied-to author only", async () => {
  const reply = await postStatus(instance, bob, "@alice me", { in_reply_to_id: post.id });
  await hold(reply.id);
  for (const who of [carol, null]) {
    const shown = await callJson(instance, who, "GET", `/api/v1/statuses/${reply.id}`);
    assert.equal(shown.status, 404, `hidden from ${who ? "carol" : "anonymous"}`);
    const context = await ok(instance, who, "GET", `/api/v1/statuses/${post.id}/context`);
    assert.deepEqual(context.descendants, []);
  }
  // Each of the two reads a note after the content; nothing is stored.
  const asAlice = await ok(instance, alice, "GET", `/api/v1/statuses/${reply.id}`);
  assert.equal(
    asAlice.content,
    `${reply.content}<p><em>This reply is waiting for your approval. Favourite, boost or reply to it to approve it, or decide at <a href="${instance.origin}/settings/interaction_requests">${instance.origin}/settings/interaction_requests</a>.</em></p>`,
  );
  const asBob = await ok(instance, bob, "GET", `/api/v1/statuses/${reply.id}`);
  assert.equal(
    asBob.content,
    `${reply.content}<p><em>Waiting for @alice to approve this reply: until then only you and they can see it.</em></p>`,
  );
  for (const who of [alice, bob]) {
    assert.equal((await ok(instance, who, "GET", `/api/v1/statuses/${reply.id}`)).id, reply.id);
    const context = await ok(instance, who, "GET", `/api/v1/statuses/${post.id}/context`);
    assert.deepEqual(context.descendants.map((s: { id: string }) => s.id), [reply.id]);
  }
  const profile = await ok(instance, carol, "GET", `/api/v1/accounts/${bob.id}/statuses`);
  assert.ok(!profile.some((s: { id: string }) => s.id === reply.id));
  const local = await ok(instance, null, "GET", "/api/v1/timelines/public?local=true");
  assert.ok(!local.some((s: { id: string }) => s.id === reply.id));

  const collection = await instance.request(`${post.uri}/replies`, {
    headers: { Accept: "application/activity+json" },
  });
  assert.equal(collection.status, 200);
  const body = JSON.stringify(await collection.json());
  assert.ok(!body.includes(reply.uri), "not in the replies collection");
  // Approved: everyone who may see the thread sees it.
  await db.update(statuses).set({ pendingApproval: false }).where(eq(statuses.id, reply.id));
  assert.equal((await ok(instance, carol, "GET", `/api/v1/statuses/${reply.id}`)).id, reply.id);
  const approved = await ok(instance, alice, "GET", `/api/v1/statuses/${reply.id}`);
  assert.equal(approved.content, reply.content, "no note once approved");
});

test("a held boost is seen by its author and the boosted author only, and not listed", async () => {
  const boost = await ok(instance, bob, "POST", `/api/v1/statuses/${post.id}/reblog`);
  await hold(boost.id);
  assert.equal(
    (await callJson(instance, carol, "GET", `/api/v1/statuses/${boost.id}`)).status,
    404,
  );
  assert.equal((await callJson(instance, null, "GET", `/api/v1/statuses/${boost.id}`)).status, 404);
  for (const who of [alice, bob]) {
    assert.equal((await ok(instance, who, "GET", `/api/v1/statuses/${boost.id}`)).id, boost.id);
  }
  const by = await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}/reblogged_by`);
  assert.deepEqual(by, []);
  // Bob still sees his own boost as done.
  assert.equal((await ok(instance, bob, "GET", `/api/v1/statuses/${post.id}`)).reblogged, true);
});

test("a held favourite is not listed in favourited_by", async () => {
  await ok(instance, carol, "POST", `/api/v1/statuses/${post.id}/favourite`);
  await ok(instance, bob, "POST", `/api/v1/statuses/${post.id}/favourite`);
  await db.update(favourites).set({ pendingApproval: true })
    .where(eq(favourites.accountId, bob.id));
  const by = await ok(instance, alice, "GET", `/api/v1/statuses/${post.id}/favourited_by`);
  assert.deepEqual(by.map((a: { id: string }) => a.id), [carol.id]);
  assert.equal((await ok(instance, bob, "GET", `/api/v1/statuses/${post.id}`)).favourited, true);
});
