/**
 * `moderation_warning` notifications (Mastodon 4.3+): a moderator's action
 * on a local account tells the person with a notification carrying the
 * AccountWarning entity, in v1 and grouped v2 notifications and on the
 * user stream, and by Web Push to a subscription with the alert on, unless
 * the moderator asked not to tell them (send_email_notification=false, as
 * Mastodon's `warnable?`).
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { notifications } from "../../db/schema/mod.ts";
import { test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { startAdminFixture } from "./admin_fixture.ts";
import { SseClient } from "../streaming/helpers.ts";
import { createToken } from "../fixtures/users.ts";
import { arrival, decrypt, startPushService, uaKeys } from "../push/helpers.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

test("moderation_warning notifications", async (t) => {
  const f = await startAdminFixture({ listen: true });
  const { instance, db, get, post, mod, alice, bob, dave, zed } = f;
  const open: SseClient[] = [];
  const service = await startPushService();
  try {
    await t.step("a warning (none) with a report: v1, v2 and the stream", async () => {
      const stream = await SseClient.open(
        instance,
        "/api/v1/streaming/user/notification",
        bob.token,
      );
      open.push(stream);
      const status = await postStatus(instance, bob, "something rude");
      const report = await post(alice, "/api/v1/reports", {
        account_id: bob.id,
        status_ids: [status.id],
        comment: "rude",
      });
      assert.equal(report.status, 200);
      const acted = await post(mod, `/api/v1/admin/accounts/${bob.id}/action`, {
        type: "none",
        text: "Please be kind.",
        report_id: report.body.id,
      });
      assert.equal(acted.status, 200);

      const list = await get(bob, "/api/v1/notifications?types[]=moderation_warning");
      assert.equal(list.status, 200);
      assert.equal(list.body.length, 1);
      const n: Json = list.body[0];
      assert.equal(n.type, "moderation_warning");
      assert.equal(n.account.id, bob.id, "the sender is the person warned, as in Mastodon");
      assert.equal(n.group_key, `ungrouped-${n.id}`);
      assert.equal(n.status, undefined);
      const w = n.moderation_warning;
      assert.deepEqual(Object.keys(w).sort(), [
        "action",
        "appeal",
        "created_at",
        "id",
        "status_ids",
        "target_account",
        "text",
      ]);
      assert.equal(w.action, "none");
      assert.equal(w.text, "Please be kind.");
      assert.deepEqual(w.status_ids, [status.id]);
      assert.equal(w.target_account.id, bob.id);
      assert.equal(w.appeal, null);
      assert.match(w.id, /^\d+$/);
      assert.ok(!Number.isNaN(Date.parse(w.created_at)));

      // exclude_types knows the type.
      const excluded = await get(bob, "/api/v1/notifications?exclude_types[]=moderation_warning");
      assert.equal(excluded.body.some((x: Json) => x.type === "moderation_warning"), false);
      const all = await get(bob, "/api/v1/notifications");
      assert.ok(all.body.some((x: Json) => x.id === n.id));
      // The single notification route.
      const one = await get(bob, `/api/v1/notifications/${n.id}`);
      assert.equal(one.status, 200);
      assert.equal(one.body.moderation_warning.id, w.id);

      const grouped = await get(bob, "/api/v2/notifications?types[]=moderation_warning");
      assert.equal(grouped.status, 200);
      assert.equal(grouped.body.notification_groups.length, 1);
      const g: Json = grouped.body.notification_groups[0];
      assert.equal(g.type, "moderation_warning");
      assert.equal(g.group_key, `ungrouped-${n.id}`);
      assert.deepEqual(g.sample_account_ids, [bob.id]);
      assert.deepEqual(g.moderation_warning, w);
      assert.deepEqual(grouped.body.accounts.map((a: Json) => a.id), [bob.id]);

      const event = await stream.next("notification");
      const streamed = JSON.parse(event.data);
      assert.equal(streamed.id, n.id);
      assert.equal(streamed.moderation_warning.text, "Please be kind.");

      // Nobody else was told.
      const alices = await get(alice, "/api/v1/notifications?types[]=moderation_warning");
      assert.equal(alices.body.length, 0);
    });

    await t.step("an action without a report: status_ids null; silence", async () => {
      const acted = await post(mod, `/api/v1/admin/accounts/${dave.id}/action`, {
        type: "silence",
      });
      assert.equal(acted.status, 200);
      const list = await get(dave, "/api/v1/notifications?types[]=moderation_warning");
      assert.equal(list.body.length, 1);
      assert.equal(list.body[0].moderation_warning.action, "silence");
      assert.equal(list.body[0].moderation_warning.text, "");
      assert.equal(list.body[0].moderation_warning.status_ids, null);
    });

    await t.step(
      "send_email_notification=false: no notification (Mastodon's warnable?)",
      async () => {
        const acted = await post(mod, `/api/v1/admin/accounts/${alice.id}/action`, {
          type: "sensitive",
          text: "quiet",
          send_email_notification: "false",
        });
        assert.equal(acted.status, 200);
        const list = await get(alice, "/api/v1/notifications?types[]=moderation_warning");
        assert.equal(list.body.length, 0);
      },
    );

    await t.step("Web Push: the alert, the title and the warning's text", async () => {
      const token = await createToken(instance, bob.userId, ["read", "push"]);
      const keys = uaKeys();
      const sub = await callJson(instance, token, "POST", "/api/v1/push/subscription", {
        subscription: {
          endpoint: `${service.origin}/mw`,
          keys: { p256dh: keys.p256dh, auth: keys.auth },
          standard: true,
        },
        data: { alerts: { moderation_warning: true } },
      });
      assert.equal(sub.status, 200, JSON.stringify(sub.body));
      assert.equal(sub.body.alerts.moderation_warning, true);
      const acted = await post(mod, `/api/v1/admin/accounts/${bob.id}/action`, {
        type: "sensitive",
        text: "Mark your media, please.",
      });
      assert.equal(acted.status, 200);
      const payload = decrypt(await arrival(service, "/mw"), keys);
      assert.equal(payload.notification_type, "moderation_warning");
      assert.equal(payload.title, "Your account has received a moderation warning");
      assert.equal(payload.body, "Mark your media, please.");
    });

    await t.step("remote accounts are not notified; suspension keeps the row", async () => {
      assert.equal(
        (await post(mod, `/api/v1/admin/accounts/${zed}/action`, { type: "silence" })).status,
        200,
      );
      const zeds = await db.select().from(notifications)
        .where(eq(notifications.accountId, zed));
      assert.equal(zeds.length, 0);
      const suspended = await post(mod, `/api/v1/admin/accounts/${dave.id}/action`, {
        type: "suspend",
        text: "bye",
      });
      assert.equal(suspended.status, 200);
      const rows = await db.select().from(notifications)
        .where(eq(notifications.accountId, dave.id));
      assert.equal(rows.filter((r) => r.type === "moderation_warning").length, 2);
    });
  } finally {
    for (const client of open) await client.close();
    await service.close();
    await instance.close({ destroy: true });
  }
});
