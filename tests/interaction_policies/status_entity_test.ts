/**
 * The Status entity's `interaction_policy` (GoToSocial's InteractionPolicy,
 * plus `can_quote`): the built-in defaults per visibility for statuses
 * with no stated policy, `me` where the viewer may interact at once or may
 * ask, never for anonymous viewers; a stated policy (written here straight
 * into the row) is shown as stored, with `me` by actor IRI, followers and
 * following. (tests/streaming/sse_test.ts checks that a streamed status is
 * the REST one, this object included.)
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { statuses } from "../../db/schema/mod.ts";
import type { StoredPolicy } from "../../model/interaction_policy.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;
const alice = await createUser(instance, "alice");
const bob = await createUser(instance, "bob");
const carol = await createUser(instance, "carol");
await ok(instance, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);

const everyone = { automatic_approval: ["public"], manual_approval: [] };
const withMe = (rules: { automatic_approval: string[]; manual_approval: string[] }) => ({
  ...rules,
  automatic_approval: [...rules.automatic_approval, "me"],
});

async function policyAs(who: { token: string } | null, id: string) {
  return (await ok(instance, who, "GET", `/api/v1/statuses/${id}`)).interaction_policy;
}

test("a public status: anyone, `me` for signed-in viewers only, quotes as its quote policy", async () => {
  const post = await postStatus(instance, alice, "open", { quote_approval_policy: "followers" });
  const quoteRules = { automatic_approval: ["followers", "author"], manual_approval: [] };
  assert.deepEqual(await policyAs(null, post.id), {
    can_favourite: everyone,
    can_reply: everyone,
    can_reblog: everyone,
    can_quote: quoteRules,
  });
  assert.deepEqual(await policyAs(carol, post.id), {
    can_favourite: withMe(everyone),
    can_reply: withMe(everyone),
    can_reblog: withMe(everyone),
    can_quote: quoteRules,
  });
  assert.deepEqual((await policyAs(bob, post.id)).can_quote, withMe(quoteRules));
  assert.deepEqual(post.interaction_policy.can_quote, withMe(quoteRules), "the author");
});

test("a private status: followers and the mentioned, boosts and quotes for the author", async () => {
  const post = await postStatus(instance, alice, "friends @carol", { visibility: "private" });
  const audience = {
    automatic_approval: ["author", "followers", "mentioned"],
    manual_approval: [],
  };
  const authorOnly = { automatic_approval: ["author"], manual_approval: [] };
  for (const viewer of [bob, carol]) {
    assert.deepEqual(await policyAs(viewer, post.id), {
      can_favourite: withMe(audience),
      can_reply: withMe(audience),
      can_reblog: authorOnly,
      can_quote: authorOnly,
    });
  }
  assert.deepEqual(post.interaction_policy.can_reblog, withMe(authorOnly));
});

test("a direct status is never boosted or quoted, not even by its author", async () => {
  const post = await postStatus(instance, alice, "@carol psst", { visibility: "direct" });
  const between = { automatic_approval: ["author", "mentioned"], manual_approval: [] };
  const authorOnly = { automatic_approval: ["author"], manual_approval: [] };
  const expected = {
    can_favourite: withMe(between),
    can_reply: withMe(between),
    can_reblog: authorOnly,
    can_quote: authorOnly,
  };
  assert.deepEqual(await policyAs(carol, post.id), expected);
  assert.deepEqual(post.interaction_policy, expected);
});

test("a stated policy: as stored, `me` by IRI, followers, following, or for asking", async () => {
  const post = await postStatus(instance, alice, "choosy");
  await ok(instance, alice, "POST", `/api/v1/accounts/${carol.id}/follow`);
  const carolUri = (await ok(instance, carol, "GET", "/api/v1/accounts/verify_credentials")).uri ??
    `${instance.origin}/users/carol`;
  const policy: StoredPolicy = {
    can_reply: { automatic: ["followers", "author", "mentioned"], manual: ["public"] },
    can_favourite: { automatic: [carolUri, "author"], manual: [] },
    can_reblog: { automatic: ["following", "author"], manual: [] },
  };
  await db.update(statuses).set({ interactionPolicy: policy }).where(eq(statuses.id, post.id));
  const asBob = await policyAs(bob, post.id);
  assert.deepEqual(asBob.can_reply, {
    automatic_approval: ["followers", "author", "mentioned", "me"],
    manual_approval: ["public"],
  });
  assert.deepEqual(asBob.can_favourite, {
    automatic_approval: [carolUri, "author"],
    manual_approval: [],
  });
  assert.deepEqual(asBob.can_reblog, {
    automatic_approval: ["following", "author"],
    manual_approval: [],
  });
  const asCarol = await policyAs(carol, post.id);
  assert.deepEqual(asCarol.can_reply, {
    automatic_approval: ["followers", "author", "mentioned"],
    manual_approval: ["public", "me"],
  });
  assert.deepEqual(asCarol.can_favourite.automatic_approval, [carolUri, "author", "me"]);
  assert.deepEqual(asCarol.can_reblog.automatic_approval, ["following", "author", "me"]);
  // Not stated: the built-in default.
  assert.deepEqual(asCarol.can_quote, withMe(everyone));
});
