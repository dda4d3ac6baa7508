/**
 * /settings/applications and /settings/sessions. In headless Chromium: a
 * signed-in user revokes an app, and its token answers 401 at once. Over
 * HTTP: forged posts, someone else's app and session ids (404), signing out
 * another session and every other one.
 */
import assert from "node:assert/strict";
import { count, eq } from "drizzle-orm";
import { webSessions } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { createToken, createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { browserTest, signInWithForm } from "../fixtures/browser.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";
import { findWebSession } from "../../actors/auth/sessions.ts";

const instance = await startInstance({ listen: true });
const db = instance.rookery.ctx.database.db;
const ann = await createUser(instance, "ann", { scopes: ["read", "write"] });
const ben = await createUser(instance, "ben");

function includes(text: string, part: string): void {
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in ${JSON.stringify(text)}`);
}

const verify = (token: string) =>
  instance.request("/api/v1/accounts/verify_credentials", {
    headers: { authorization: `Bearer ${token}` },
  });

browserTest("a signed-in user revokes an app and its token answers 401", async (browser) => {
  const before = await verify(ann.token);
  assert.equal(before.status, 200);
  await before.body?.cancel();
  const page = await browser.newPage();
  await page.goto(`${instance.origin}/settings/applications`);
  // Not signed in: the sign-in form, coming back here.
  await signInWithForm(page, "ann", TEST_PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/settings/applications");
  const row = (await page.textContent("table.apps tbody tr"))!;
  includes(row, "Test app");
  includes(row, "read write");
  await Promise.all([
    page.waitForNavigation(),
    page.click('button[aria-label="Revoke Test app"]'),
  ]);
  includes((await page.textContent("main"))!, "The app was revoked");
  assert.equal(await page.$("table.apps"), null);
  const after = await verify(ann.token);
  assert.equal(after.status, 401);
  await after.body?.cancel();
  await page.close();
});

test("settings over HTTP: forged posts, others' ids, sessions", async (t) => {
  const benToken = await createToken(instance, ben.userId);
  const benSession = await signInOverHttp(instance, "ben", "/settings/applications");
  const appId = (await benSession.get("/settings/applications").then((r) => r.text()))
    .match(/data-app="(\d+)"/)![1];

  await t.step("a forged revoke is refused and revokes nothing", async () => {
    const forged = await benSession.post(`/settings/applications/${appId}/revoke`, {
      authenticity_token: "forged",
    });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    const anonymous = await instance.request(`/settings/applications/${appId}/revoke`, {
      method: "POST",
      redirect: "manual",
    });
    assert.equal(anonymous.status, 403);
    await anonymous.body?.cancel();
    // With a trailing slash too (Rails ignores it, so do we): the gate still holds.
    const slash = await instance.request(`/settings/applications/${appId}/revoke/`, {
      method: "POST",
      redirect: "manual",
    });
    assert.equal(slash.status, 403);
    await slash.body?.cancel();
    const page = await instance.request("/settings/applications/", { redirect: "manual" });
    assert.equal(page.status, 303);
    await page.body?.cancel();
    const still = await verify(benToken);
    assert.equal(still.status, 200);
    await still.body?.cancel();
  });

  await t.step("someone else's or an unknown app id answers 404", async () => {
    const annSession = await signInOverHttp(instance, "ann", "/settings/applications");
    for (const id of [appId, "999999", "not-a-number", "1".repeat(40)]) {
      const res = await annSession.post(`/settings/applications/${id}/revoke`);
      assert.equal(res.status, 404, id);
      await res.body?.cancel();
    }
    // Ben's tokens still work.
    const still = await verify(benToken);
    assert.equal(still.status, 200);
    await still.body?.cancel();
  });

  await t.step(
    "sessions: list, sign out another, others' ids 404, sign out all others",
    async () => {
      const second = await signInOverHttp(instance, "ben", "/settings/sessions");
      const third = await signInOverHttp(instance, "ben", "/settings/sessions");
      const page = await benSession.get("/settings/sessions");
      const html = await page.text();
      const ids = [...html.matchAll(/data-session="(\d+)"/g)].map((m) => m[1]);
      assert.equal(ids.length, 3);
      includes(html, "This browser");
      const secretOf = (cookie: string) =>
        decodeURIComponent(cookie.slice(cookie.indexOf("=") + 1));
      const secondId =
        (await findWebSession(db, instance.rookery.ctx.core.activity, secretOf(second.cookie)))!.id;

      // Ann cannot end Ben's session.
      const annSession = await signInOverHttp(instance, "ann", "/settings/sessions");
      const foreign = await annSession.post(`/settings/sessions/${secondId}/end`);
      assert.equal(foreign.status, 404);
      await foreign.body?.cancel();

      const ended = await benSession.post(`/settings/sessions/${secondId}/end`);
      assert.equal(ended.status, 303);
      const gone = await second.get("/settings/sessions");
      assert.equal(gone.status, 303);
      includes(gone.headers.get("location")!, "/auth/sign_in");

      const others = await benSession.post("/settings/sessions/end_others");
      assert.equal(others.status, 303);
      const thirdGone = await third.get("/settings/sessions");
      assert.equal(thirdGone.status, 303);
      const [left] = await db.select({ n: count() }).from(webSessions)
        .where(eq(webSessions.userId, ben.userId));
      assert.equal(left.n, 1);
      const mine = await benSession.get("/settings/sessions");
      assert.equal(mine.status, 200);
      await mine.body?.cancel();
    },
  );
});
