/**
 * Members of collections: adding (the feature policy, blocks, the 25-item
 * limit, duplicates), removing, revoking, the notifications members get
 * (`added_to_collection`, `collection_update`, v1 and grouped, gone with
 * the collection), and `feature_approval` on Account for every branch of
 * the policy, local and remote. One instance for the file.
 */
import assert from "node:assert/strict";
import { newId } from "../../db/ids.ts";
import { accounts, follows } from "../../db/schema/mod.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { callJson, ok } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";

const V1 = "/api/v1/collections";

async function remoteAccount(
  instance: TestInstance,
  username: string,
  featurePolicy: { automatic: string[]; manual: string[] } | null,
): Promise<string> {
  const [row] = await instance.rookery.ctx.database.db.insert(accounts).values({
    id: newId(),
    username,
    domain: "remote.example",
    uri: `https://remote.example/users/${username}`,
    inboxUrl: `https://remote.example/users/${username}/inbox`,
    followersUrl: `https://remote.example/users/${username}/followers`,
    featurePolicy,
    fetchedAt: new Date(),
  }).returning({ id: accounts.id });
  return row.id;
}

async function followRow(instance: TestInstance, from: string, to: string): Promise<void> {
  await instance.rookery.ctx.database.db.insert(follows).values({
    id: newId(),
    accountId: from,
    targetAccountId: to,
  });
}

async function notificationsOf(instance: TestInstance, who: TestUser) {
  return await ok<any[]>(instance, who, "GET", "/api/v1/notifications");
}

test("collections: members, consent and notifications", async (t) => {
  const instance = await startInstance();
  try {
    const [alice, bob, lena, locked, hidden] = await Promise.all([
      createUser(instance, "alice"),
      createUser(instance, "bob"),
      createUser(instance, "lena"),
      createUser(instance, "locked", { account: { locked: true } }),
      createUser(instance, "hidden", { account: { discoverable: false } }),
    ]);
    const collection = (await ok(instance, alice, "POST", V1, { name: "Friends" })).collection;
    const items = `${V1}/${collection.id}/items`;

    await t.step("a local member is accepted at once and notified", async () => {
      const added = await ok(instance, alice, "POST", items, { account_id: bob.id });
      assert.deepEqual(Object.keys(added), ["collection_item"]);
      assert.deepEqual(Object.keys(added.collection_item), [
        "id",
        "account_id",
        "state",
        "created_at",
      ]);
      assert.equal(added.collection_item.account_id, bob.id);
      assert.equal(added.collection_item.state, "accepted");
      const [notification] = await notificationsOf(instance, bob);
      assert.equal(notification.type, "added_to_collection");
      assert.equal(notification.account.id, alice.id);
      assert.equal(notification.group_key, `ungrouped-${notification.id}`);
      assert.equal(notification.collection.id, collection.id);
      assert.deepEqual(notification.collection.items.map((i: any) => i.account_id), [bob.id]);
      const grouped = await ok(instance, bob, "GET", "/api/v2/notifications");
      assert.equal(grouped.notification_groups[0].type, "added_to_collection");
      assert.equal(grouped.notification_groups[0].collection.id, collection.id);
      const again = await callJson(instance, alice, "POST", items, { account_id: bob.id });
      assert.equal(again.status, 422);
      assert.equal(again.body.details.account_id[0].error, "ERR_TAKEN");
    });

    await t.step("the feature policy and blocks refuse with 403", async () => {
      for (const who of [hidden, locked]) {
        const res = await callJson(instance, alice, "POST", items, { account_id: who.id });
        assert.equal(res.status, 403, who.username);
        assert.deepEqual(res.body, { error: "This action is not allowed" });
      }
      // Locked: its followers only.
      await ok(instance, alice, "POST", `/api/v1/accounts/${locked.id}/follow`);
      await ok(instance, locked, "POST", `/api/v1/follow_requests/${alice.id}/authorize`);
      assert.equal(
        (await callJson(instance, alice, "POST", items, { account_id: locked.id })).status,
        200,
      );
      await ok(instance, lena, "POST", `/api/v1/accounts/${alice.id}/block`);
      assert.equal(
        (await callJson(instance, alice, "POST", items, { account_id: lena.id })).status,
        403,
      );
      await ok(instance, lena, "POST", `/api/v1/accounts/${alice.id}/unblock`);
      const missing = await callJson(instance, alice, "POST", items, {});
      assert.equal(missing.status, 422);
      assert.deepEqual(missing.body, { error: "`account_id` parameter is missing" });
      assert.equal(
        (await callJson(instance, alice, "POST", items, { account_id: "98765" })).status,
        404,
      );
      assert.equal(
        (await callJson(instance, bob, "POST", items, { account_id: lena.id })).status,
        403,
      );
    });

    await t.step("a remote member is pending until its server accepts", async () => {
      const remote = await remoteAccount(instance, "rita", { automatic: ["public"], manual: [] });
      const added = await ok(instance, alice, "POST", items, { account_id: remote });
      assert.equal(added.collection_item.state, "pending");
      // Only the owner sees pending items.
      const own = await ok(instance, alice, "GET", `${V1}/${collection.id}`);
      assert.ok(own.collection.items.some((i: any) => i.account_id === remote));
      const other = await ok(instance, null, "GET", `${V1}/${collection.id}`);
      assert.ok(!other.collection.items.some((i: any) => i.account_id === remote));
      assert.equal(other.collection.item_count, own.collection.item_count);
      const none = await remoteAccount(instance, "nopolicy", null);
      assert.equal(
        (await callJson(instance, alice, "POST", items, { account_id: none })).status,
        403,
      );
    });

    await t.step("update notifies members only for a new name or description", async () => {
      const before = (await notificationsOf(instance, bob)).length;
      await ok(instance, alice, "PATCH", `${V1}/${collection.id}`, { sensitive: true });
      assert.equal((await notificationsOf(instance, bob)).length, before);
      await ok(instance, alice, "PATCH", `${V1}/${collection.id}`, { description: "New words" });
      const [latest] = await notificationsOf(instance, bob);
      assert.equal(latest.type, "collection_update");
      assert.equal(latest.collection.description, "New words");
      assert.equal((await notificationsOf(instance, bob)).length, before + 1);
    });

    await t.step("remove by the owner, revoke by the member, re-add after a revoke", async () => {
      const shown = await ok(instance, null, "GET", `${V1}/${collection.id}`);
      const lockedItem = shown.collection.items.find((i: any) => i.account_id === locked.id);
      const bobItem = shown.collection.items.find((i: any) => i.account_id === bob.id);
      const path = (id: string) => `${items}/${id}`;
      assert.equal((await callJson(instance, bob, "DELETE", path(lockedItem.id))).status, 403);
      assert.deepEqual(await ok(instance, alice, "DELETE", path(lockedItem.id)), {});
      assert.equal((await callJson(instance, alice, "DELETE", path(lockedItem.id))).status, 404);

      assert.equal(
        (await callJson(instance, lena, "POST", `${path(bobItem.id)}/revoke`)).status,
        403,
      );
      assert.deepEqual(await ok(instance, bob, "POST", `${path(bobItem.id)}/revoke`), {});
      const after = await ok(instance, null, "GET", `${V1}/${collection.id}`);
      assert.ok(!after.collection.items.some((i: any) => i.account_id === bob.id));
      const inCollections = await ok(
        instance,
        bob,
        "GET",
        `/api/v1/accounts/${bob.id}/in_collections`,
      );
      assert.deepEqual(inCollections.collections, []);
      // The owner may ask again: the revoked row is reused.
      const readded = await ok(instance, alice, "POST", items, { account_id: bob.id });
      assert.equal(readded.collection_item.id, bobItem.id);
      assert.equal(readded.collection_item.state, "accepted");
    });

    await t.step("the 25-item limit", async () => {
      const big = (await ok(instance, alice, "POST", V1, { name: "Big" })).collection;
      const members = await Promise.all(
        Array.from({ length: 25 }, (_, i) => createUser(instance, `member${i}`)),
      );
      for (const member of members) {
        await ok(instance, alice, "POST", `${V1}/${big.id}/items`, { account_id: member.id });
      }
      const extra = await callJson(instance, alice, "POST", `${V1}/${big.id}/items`, {
        account_id: lena.id,
      });
      assert.equal(extra.status, 422);
      assert.equal(extra.body.details.collection_items[0].error, "ERR_INVALID");
      const tooMany = await callJson(instance, alice, "POST", V1, {
        name: "Too many",
        account_ids: [...members.map((m) => m.id), lena.id],
      });
      assert.equal(tooMany.status, 422);
      assert.equal(tooMany.body.error.details.collection_items[0].error, "ERR_INVALID");
    });

    await t.step("notifications go with their collection", async () => {
      const before = await notificationsOf(instance, bob);
      assert.ok(before.some((n: any) => n.collection?.id === collection.id));
      await ok(instance, alice, "DELETE", `${V1}/${collection.id}`);
      const after = await notificationsOf(instance, bob);
      assert.ok(
        !after.some((n: any) =>
          n.type === "added_to_collection" && n.collection?.id === collection.id
        ),
      );
    });

    await t.step("feature_approval on Account, every branch", async () => {
      const approval = async (viewer: TestUser | null, id: string) =>
        (await ok(instance, viewer, "GET", `/api/v1/accounts/${id}`)).feature_approval;
      assert.deepEqual(await approval(null, bob.id), {
        automatic: ["public"],
        manual: [],
        current_user: "denied",
      });
      assert.equal((await approval(alice, bob.id)).current_user, "automatic");
      assert.equal((await approval(bob, bob.id)).current_user, "automatic");
      assert.deepEqual(await approval(alice, hidden.id), {
        automatic: [],
        manual: [],
        current_user: "denied",
      });
      assert.deepEqual(await approval(bob, locked.id), {
        automatic: ["followers"],
        manual: [],
        current_user: "denied",
      });
      assert.equal((await approval(alice, locked.id)).current_user, "automatic");

      const followers = await remoteAccount(instance, "ruth", {
        automatic: ["followers"],
        manual: [],
      });
      const following = await remoteAccount(instance, "rosa", {
        automatic: [],
        manual: ["following"],
      });
      const odd = await remoteAccount(instance, "ravi", {
        automatic: ["unsupported_policy"],
        manual: [],
      });
      const missing = await remoteAccount(instance, "rex", null);
      assert.equal((await approval(alice, followers)).current_user, "denied");
      await followRow(instance, alice.id, followers);
      assert.equal((await approval(alice, followers)).current_user, "automatic");
      assert.equal((await approval(alice, following)).current_user, "denied");
      await followRow(instance, following, alice.id);
      assert.equal((await approval(alice, following)).current_user, "manual");
      assert.deepEqual(await approval(alice, odd), {
        automatic: ["unsupported_policy"],
        manual: [],
        current_user: "unknown",
      });
      assert.deepEqual(await approval(alice, missing), {
        automatic: [],
        manual: [],
        current_user: "missing",
      });
      assert.equal((await approval(null, missing)).current_user, "denied");
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
