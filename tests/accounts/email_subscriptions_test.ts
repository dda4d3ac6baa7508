/**
 * E-mail subscriptions (Mastodon 4.7): POST
 * /api/v1/accounts/:id/email_subscriptions behind its five gates (404 until
 * all hold), the 422 shapes, no enumeration (a repeat answers 200 and sends
 * no second mail within the hour), the confirmation mail with its list
 * headers, the confirm and unsubscribe pages (button, then POST), RFC 8058
 * one-click, and forged or dead tokens (404 page).
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { createToken, createUser } from "../fixtures/users.ts";
import { emailSubscriptions, roleSettings } from "../../db/schema/mod.ts";
import { setServerSetting } from "../../actors/settings/server_settings.ts";
import { mailFiles } from "./helpers.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";

/** The mail with quoted-printable soft breaks and folded header lines undone. */
function unfold(mail: string): string {
  return mail.replace(/=\r?\n/g, "").replace(/=3D/g, "=").replace(/\r?\n[ \t]+/g, " ");
}

function link(mail: string, kind: "confirm" | "unsubscribe"): string {
  const match = new RegExp(`https?://[^\\s>]+/email_subscriptions/${kind}\\?token=[A-Za-z0-9_-]+`)
    .exec(unfold(mail));
  assert.ok(match, `no ${kind} link in:\n${mail}`);
  return match[0];
}

test("e-mail subscriptions: gates, validation, confirm and unsubscribe", async (t) => {
  const instance = await startInstance({
    worker: false,
    env: { EMAIL_SUBSCRIPTIONS: "true", EMAIL_DOMAIN_CHECK: "false", RATE_LIMITS: "on" },
  });
  try {
    const { db } = instance.rookery.ctx.database;
    const alice = await createUser(instance, "alice");
    const path = `/api/v1/accounts/${alice.id}/email_subscriptions`;
    const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      instance.request(path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const answer = async (res: Response) => ({ status: res.status, body: await res.json() });

    await t.step("404 until the admin, the role and the owner all turn them on", async () => {
      const notFound = { status: 404, body: { error: "Record not found" } };
      assert.deepEqual(await answer(await post({ email: "reader@example.com" })), notFound);
      const page = await signInOverHttp(instance, "alice", "/");
      const settings = async () => await (await page.get("/settings/email_subscriptions")).text();
      assert.match(await settings(), /not available for your account/);
      await setServerSetting(db, "email_subscriptions", true);
      assert.deepEqual(await answer(await post({ email: "reader@example.com" })), notFound);
      await db.update(roleSettings).set({ emailSubscriptions: true })
        .where(eq(roleSettings.role, "user"));
      assert.deepEqual(await answer(await post({ email: "reader@example.com" })), notFound);
      // The owner opts in on the settings page, which the role now offers.
      assert.match(await settings(), /Subscriptions are <strong>off<\/strong>/);
      const on = await page.post("/settings/email_subscriptions", { enabled: "1" });
      assert.equal(on.status, 303);
      await on.body?.cancel();
      assert.match(await settings(), /Subscriptions are <strong>on<\/strong>/);
      assert.deepEqual(await answer(await post({ email: "Reader@Example.com " })), {
        status: 200,
        body: {},
      });
      const none = `/api/v1/accounts/999999/email_subscriptions`;
      const res = await instance.request(none, {
        method: "POST",
        body: new URLSearchParams({ email: "a@b.example" }),
      });
      assert.equal(res.status, 404);
      await res.body?.cancel();
    });

    await t.step("422 for a blank, malformed or too long address", async () => {
      assert.deepEqual(await answer(await post({ email: "nope" })), {
        status: 422,
        body: {
          error: "Validation failed: Email is invalid",
          details: { email: [{ error: "ERR_INVALID", description: "is invalid" }] },
        },
      });
      const blank = await answer(await post({}));
      assert.equal(blank.status, 422);
      assert.equal(blank.body.details.email[0].error, "ERR_BLANK");
      const long = await answer(await post({ email: `${"a".repeat(320)}@example.com` }));
      assert.equal(long.body.details.email[0].error, "ERR_TOO_LONG");
    });

    await t.step("one confirmation mail with the list headers; a repeat sends none", async () => {
      const mails = await mailFiles(instance);
      assert.equal(mails.length, 1);
      const mail = unfold(mails[0]);
      assert.match(mail, /^To: reader@example\.com$/m);
      assert.match(mail, /^Subject: Confirm your subscription to alice \(@alice@/m);
      assert.match(mail, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/m);
      assert.match(mail, /^Auto-Submitted: auto-generated$/m);
      assert.match(
        mail,
        /^List-Unsubscribe: <https?:\/\/.*\/email_subscriptions\/unsubscribe\?token=/m,
      );
      // The same address again, and with a token of another user: accepted, no new mail.
      const bob = await createUser(instance, "bob");
      const token = await createToken(instance, bob.userId, ["read"]);
      const again = await post({ email: "reader@example.com" }, {
        authorization: `Bearer ${token}`,
      });
      assert.equal(again.status, 200);
      await again.body?.cancel();
      assert.equal((await mailFiles(instance)).length, 1);
      const rows = await db.select().from(emailSubscriptions);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].email, "reader@example.com");
      assert.equal(rows[0].confirmedAt, null);
    });

    await t.step("confirm: the link shows a button, its POST confirms", async () => {
      const url = new URL(link((await mailFiles(instance))[0], "confirm"));
      const page = await instance.request(url.pathname + url.search);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /<form method="post" action="\/email_subscriptions\/confirm\?token=/);
      const [before] = await db.select().from(emailSubscriptions);
      assert.equal(before.confirmedAt, null, "following the link alone confirms nothing");
      const done = await instance.request(url.pathname + url.search, { method: "POST" });
      assert.equal(done.status, 200);
      assert.match(await done.text(), /Subscription confirmed/);
      const [after] = await db.select().from(emailSubscriptions);
      assert.ok(after.confirmedAt);
    });

    await t.step("forged and altered tokens are a 404 page", async () => {
      const url = new URL(link((await mailFiles(instance))[0], "confirm"));
      const token = url.searchParams.get("token")!;
      for (
        const bad of [
          "x",
          token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA"),
          btoa(`${(await db.select().from(emailSubscriptions))[0].id}.confirm.9999999999999.AAAA`),
        ]
      ) {
        const res = await instance.request(`/email_subscriptions/confirm?token=${bad}`);
        assert.equal(res.status, 404);
        await res.body?.cancel();
      }
      // A confirm token does not unsubscribe.
      const res = await instance.request(`/email_subscriptions/unsubscribe?token=${token}`, {
        method: "POST",
      });
      assert.equal(res.status, 404);
      await res.body?.cancel();
    });

    await t.step("one-click unsubscribe (RFC 8058), then the link is dead", async () => {
      const url = new URL(link((await mailFiles(instance))[0], "unsubscribe"));
      const page = await instance.request(url.pathname + url.search);
      assert.equal(page.status, 200);
      await page.body?.cancel();
      const res = await instance.request(url.pathname + url.search, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      const left = await db.select().from(emailSubscriptions)
        .where(and(eq(emailSubscriptions.accountId, alice.id)));
      assert.equal(left.length, 0);
      // The owner's "remove all" and switch off.
      await db.insert(emailSubscriptions).values({
        id: "1",
        accountId: alice.id,
        email: "x@example.com",
        confirmedAt: new Date(),
      });
      const owner = await signInOverHttp(instance, "alice", "/");
      assert.match(
        await (await owner.get("/settings/email_subscriptions")).text(),
        /<strong>1<\/strong> confirmed subscriber\./,
      );
      const removed = await owner.post("/settings/email_subscriptions/remove_all");
      assert.equal(removed.status, 303);
      await removed.body?.cancel();
      assert.equal((await db.select().from(emailSubscriptions)).length, 0);
      const off = await owner.post("/settings/email_subscriptions", { enabled: "0" });
      await off.body?.cancel();
      const closed = await post({ email: "reader@example.com" });
      assert.equal(closed.status, 404);
      await closed.body?.cancel();
      const again = await instance.request(url.pathname + url.search, { method: "POST" });
      assert.equal(again.status, 404);
      await again.body?.cancel();
    });

    await t.step("the eleventh request from one address in 30 minutes is refused", async () => {
      // Ten were made above, whatever they answered.
      const res = await post({ email: "reader@example.com" });
      assert.equal(res.status, 429);
      await res.body?.cancel();
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
