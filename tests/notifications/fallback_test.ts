/**
 * Notification fallbacks (Mastodon 4.6): `supported_types[]` opts in; a
 * notification or group of a type the client did not list, and that has a
 * fallback, carries `fallback`; types every client knows never do; without
 * the parameter nothing changes. v1, v1 by id, v2 and v2 by key.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { users } from "../../db/schema/mod.ts";
import { notify } from "../../actors/notifications/notify.ts";
import { notifyStaffOfSignUp } from "../../actors/notifications/staff.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

const SUMMARY = (origin: string) =>
  "You are using an app that does not support this notification. " +
  `<a href="${origin}/">Sign in</a> on the web to see it.`;

test("notification fallbacks: opted in by supported_types[], per type", async (t) => {
  const instance = await startInstance({ worker: false });
  try {
    const { db } = instance.rookery.ctx.database;
    const [admin, bob, carol, dave] = await Promise.all(
      ["boss", "bob", "carol", "dave"].map((n) => createUser(instance, n)),
    );
    await db.update(users).set({ role: "admin" }).where(eq(users.id, admin.userId));
    // A sign-up (two, grouped), a collection, a move, a mention.
    await db.transaction(async (tx) => {
      await notifyStaffOfSignUp(tx, carol.id);
      await notifyStaffOfSignUp(tx, dave.id);
      await notify(tx, { type: "move", accountId: admin.id, fromAccountId: bob.id });
    });
    await ok(instance, bob, "POST", "/api/v1/collections", {
      name: "Staff",
      account_ids: [admin.id],
    });
    await postStatus(instance, bob, "@boss hello");
    const origin = instance.origin;
    const mention = (name: string) => `<a href="${origin}/@${name}">@${name}</a>`;

    await t.step("no supported_types[]: no fallback anywhere", async () => {
      const v1 = await ok<any[]>(instance, admin, "GET", "/api/v1/notifications");
      assert.ok(v1.length >= 5);
      assert.ok(v1.every((n) => !("fallback" in n)));
      const v2 = await ok(instance, admin, "GET", "/api/v2/notifications");
      assert.ok(v2.notification_groups.every((g: any) => !("fallback" in g)));
    });

    await t.step("v1: each fallback type, none for the types clients know", async () => {
      const v1 = await ok<any[]>(
        instance,
        admin,
        "GET",
        "/api/v1/notifications?supported_types[]=mention&supported_types[]=follow",
      );
      const byType = new Map(v1.map((n) => [n.type, n]));
      assert.deepEqual(byType.get("added_to_collection").fallback, {
        title: `${mention("bob")} added you to a collection`,
        summary: SUMMARY(origin),
        description: null,
      });
      assert.equal(byType.get("move").fallback.title, `${mention("bob")} moved to someone`);
      assert.match(
        byType.get("admin.sign_up").fallback.title,
        /^<a href=".*">@(carol|dave)<\/a> signed up$/,
      );
      assert.ok(!("fallback" in byType.get("mention")));
      // Listed types get none, even when they have one.
      const listed = await ok<any[]>(
        instance,
        admin,
        "GET",
        "/api/v1/notifications?supported_types[]=added_to_collection",
      );
      assert.ok(!("fallback" in listed.find((n) => n.type === "added_to_collection")));
      const one = byType.get("added_to_collection");
      const byId = await ok(
        instance,
        admin,
        "GET",
        `/api/v1/notifications/${one.id}?supported_types[]=mention`,
      );
      assert.deepEqual(byId.fallback, one.fallback);
    });

    await t.step("v2: groups get theirs, a grouped sign-up counts the others", async () => {
      const v2 = await ok(
        instance,
        admin,
        "GET",
        "/api/v2/notifications?supported_types[]=mention",
      );
      const signUps = v2.notification_groups.find((g: any) => g.type === "admin.sign_up");
      assert.equal(signUps.notifications_count, 2);
      assert.match(
        signUps.fallback.title,
        /^<a href=".*">@(carol|dave)<\/a> and 1 other signed up$/,
      );
      const collection = v2.notification_groups.find((g: any) => g.type === "added_to_collection");
      assert.equal(collection.fallback.title, `${mention("bob")} added you to a collection`);
      assert.ok(!("fallback" in v2.notification_groups.find((g: any) => g.type === "mention")));
      const byKey = await ok(
        instance,
        admin,
        "GET",
        `/api/v2/notifications/${collection.group_key}?supported_types[]=mention`,
      );
      assert.deepEqual(byKey.notification_groups[0].fallback, collection.fallback);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
