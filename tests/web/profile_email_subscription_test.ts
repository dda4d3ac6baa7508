/**
 * The profile page's "Get new posts by e-mail" (Mastodon 4.7): the form is
 * shown only while the account takes subscriptions (the API route's gates);
 * a page with it holds the visitor's form token, so it is stored by no
 * cache, while a profile without it stays cacheable; the form's POST needs
 * the double-submit token (cookie and field), and runs the API's command:
 * 422 page for a bad address, "Check your inbox" and one confirmation mail
 * for a good one, 404 once the owner turns subscriptions off; the API
 * route's per-address limit counts the form's posts too.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { createUser } from "../fixtures/users.ts";
import { emailSubscriptions, roleSettings } from "../../db/schema/mod.ts";
import { setServerSetting } from "../../actors/settings/server_settings.ts";
import { setSubscriptionsEnabled } from "../../actors/email_subscriptions/owner.ts";
import { mailFiles } from "../accounts/helpers.ts";

const CSRF_COOKIE = "_rookery_csrf";

/** The form token the page holds, or null when it shows no form. */
function formToken(html: string): string | null {
  const form = /<form method="post" action="\/@alice\/email_subscriptions">([\s\S]*?)<\/form>/
    .exec(html);
  if (!form) return null;
  return /name="authenticity_token" value="([^"]+)"/.exec(form[1])?.[1] ?? null;
}

test("profile page: the e-mail subscription form", async (t) => {
  const instance = await startInstance({
    worker: false,
    env: { EMAIL_SUBSCRIPTIONS: "true", EMAIL_DOMAIN_CHECK: "false", RATE_LIMITS: "on" },
  });
  try {
    const { db } = instance.rookery.ctx.database;
    const alice = await createUser(instance, "alice");
    await createUser(instance, "bob");
    const page = (path: string, cookie?: string) =>
      instance.request(path, { headers: cookie ? { cookie } : {} });
    const post = (fields: Record<string, string>, cookie?: string) =>
      instance.request("/@alice/email_subscriptions", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...(cookie ? { cookie } : {}),
        },
        body: new URLSearchParams(fields).toString(),
      });
    const rows = () =>
      db.select().from(emailSubscriptions).where(eq(emailSubscriptions.accountId, alice.id));

    await t.step("no form while a gate is closed; the page stays cacheable", async () => {
      await setServerSetting(db, "email_subscriptions", true);
      await db.update(roleSettings).set({ emailSubscriptions: true })
        .where(eq(roleSettings.role, "user"));
      // The owner has not opted in.
      const res = await page("/@alice");
      const html = await res.text();
      assert.equal(res.status, 200);
      assert.equal(formToken(html), null);
      assert.doesNotMatch(html, /Get new posts by e-mail/);
      assert.equal(res.headers.get("cache-control"), null);
      assert.match(res.headers.get("vary") ?? "", /Cookie/);
      assert.equal(res.headers.get("set-cookie"), null);
    });

    let cookie = "";
    let token = "";
    await t.step("with every gate open: the form, a form cookie, never cached", async () => {
      await setSubscriptionsEnabled(db, alice.userId, true);
      const res = await page("/@alice");
      const html = await res.text();
      assert.match(html, /Get new posts by e-mail/);
      token = formToken(html) ?? "";
      assert.ok(token, "the form carries a token");
      const setCookie = res.headers.get("set-cookie") ?? "";
      assert.match(setCookie, new RegExp(`^${CSRF_COOKIE}=${token};`));
      assert.match(setCookie, /HttpOnly/i);
      assert.equal(res.headers.get("cache-control"), "private, no-store");
      cookie = `${CSRF_COOKIE}=${token}`;
      // A browser that has the cookie gets its own token again, still uncached.
      const again = await page("/@alice/with_replies", cookie);
      assert.equal(formToken(await again.text()), token);
      assert.equal(again.headers.get("set-cookie"), null);
      assert.equal(again.headers.get("cache-control"), "private, no-store");
      // Another account's profile without subscriptions is unchanged.
      const bob = await page("/@bob");
      assert.equal(formToken(await bob.text()), null);
      assert.equal(bob.headers.get("cache-control"), null);
    });

    await t.step("a POST without the matching token is refused", async () => {
      for (
        const [fields, withCookie] of [
          [{ email: "reader@example.com" }, true],
          [{ email: "reader@example.com", authenticity_token: token }, false],
          [{ email: "reader@example.com", authenticity_token: "x".repeat(43) }, true],
        ] as const
      ) {
        const res = await post(fields, withCookie ? cookie : undefined);
        assert.equal(res.status, 403);
        assert.match(await res.text(), /Form expired/);
      }
      assert.deepEqual(await rows(), []);
      assert.deepEqual(await mailFiles(instance), []);
    });

    await t.step("a bad address is a 422 page; a good one is mailed once", async () => {
      const bad = await post({ email: "nope", authenticity_token: token }, cookie);
      assert.equal(bad.status, 422);
      assert.match(await bad.text(), /Email is invalid/);
      assert.deepEqual(await rows(), []);
      const good = await post({ email: " Reader@Example.com", authenticity_token: token }, cookie);
      assert.equal(good.status, 200);
      assert.match(await good.text(), /Check your inbox/);
      assert.equal(good.headers.get("cache-control"), "private, no-store");
      const stored = await rows();
      assert.equal(stored.length, 1);
      assert.equal(stored[0].email, "reader@example.com");
      assert.equal(stored[0].confirmedAt, null);
      const mails = await mailFiles(instance);
      assert.equal(mails.length, 1);
      assert.match(mails[0], /^To: reader@example\.com\r?$/m);
    });

    await t.step("the owner turns them off: no form, and the POST is a 404", async () => {
      await setSubscriptionsEnabled(db, alice.userId, false);
      const res = await page("/@alice", cookie);
      assert.equal(formToken(await res.text()), null);
      const refused = await post({ email: "other@example.com", authenticity_token: token }, cookie);
      assert.equal(refused.status, 404);
      await refused.body?.cancel();
      assert.equal((await rows()).length, 1);
      const nobody = await instance.request("/@nobody/email_subscriptions", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: new URLSearchParams({ email: "a@b.example", authenticity_token: token }).toString(),
      });
      assert.equal(nobody.status, 404);
      await nobody.body?.cancel();
    });

    await t.step("the form and the API route share the 10 per 30 minutes", async () => {
      // Seven form posts were made above, whatever they answered; three API calls make ten.
      for (let i = 0; i < 3; i++) {
        const api = await instance.request(`/api/v1/accounts/${alice.id}/email_subscriptions`, {
          method: "POST",
          body: new URLSearchParams({ email: "a@b.example" }),
        });
        assert.equal(api.status, 404);
        await api.body?.cancel();
      }
      const res = await post({ email: "late@example.com", authenticity_token: token }, cookie);
      assert.equal(res.status, 429);
      await res.body?.cancel();
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
