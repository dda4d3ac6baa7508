/**
 * The staff pages' door and dashboard, in headless Chromium: a moderator
 * signs in through the form and sees the instance's real figures; a plain
 * user gets 403; a stranger is sent to the sign-in form and back. Then, over
 * plain HTTP: forged form posts, open redirects, headers.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { domainBlocks, users } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { browserTest, signInWithForm } from "../fixtures/browser.ts";
import { includes, signInOverHttp } from "./http_session.ts";

const instance = await startInstance({ listen: true });
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;
const mona = await createUser(instance, "mona");
await db.update(users).set({ role: "moderator" }).where(eq(users.id, mona.userId));
await createUser(instance, "pat");
await createUser(instance, "carol", { approved: false });
await db.insert(domainBlocks).values({ id: newId(), domain: "spam.example", severity: "suspend" });

/** The figure the dashboard shows for `key`. */
async function figure(page: import("playwright-core").Page, key: string): Promise<string> {
  return (await page.textContent(`[data-count=${key}] dd`))!.trim();
}

browserTest("a moderator signs in at /admin and sees the dashboard's figures", async (browser) => {
  const page = await browser.newPage();
  await page.goto(`${instance.origin}/admin`);
  // Not signed in: the sign-in form, which comes back to /admin.
  assert.match(page.url(), /\/auth\/sign_in\?redirect_to=%2Fadmin$/);
  await signInWithForm(page, "mona", TEST_PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/admin");
  assert.equal(await page.textContent("h1"), "Dashboard");
  // mona, pat and carol; carol waits for approval.
  assert.equal(await figure(page, "users"), "3");
  assert.equal(await figure(page, "pendingUsers"), "1");
  assert.equal(await figure(page, "domainBlocks"), "1");
  assert.equal(await figure(page, "openReports"), "0");
  // A moderator's navigation has no domain blocks (manage_federation is an admin's).
  const nav = await page.textContent("header nav");
  includes(nav!, "Reports");
  assert.ok(!nav!.includes("Domain blocks"));

  // A new post shows in the figures on the next visit.
  const before = Number(await figure(page, "localStatuses"));
  const res = await instance.request("/api/v1/statuses", {
    method: "POST",
    headers: { authorization: `Bearer ${mona.token}`, "content-type": "application/json" },
    body: JSON.stringify({ status: "counted" }),
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  await page.reload();
  assert.equal(Number(await figure(page, "localStatuses")), before + 1);

  // Signing out ends the session: /admin asks for a sign-in again.
  await Promise.all([page.waitForNavigation(), page.click("header button[type=submit]")]);
  await page.goto(`${instance.origin}/admin`);
  assert.match(page.url(), /\/auth\/sign_in/);
});

browserTest("a user who is not staff gets 403 at /admin", async (browser) => {
  const page = await browser.newPage();
  await page.goto(`${instance.origin}/auth/sign_in?redirect_to=/admin`);
  const response = await Promise.all([
    page.waitForNavigation(),
    (async () => {
      await page.fill("#login", "pat");
      await page.fill("#password", TEST_PASSWORD);
      await page.click("button[type=submit]");
    })(),
  ]).then(([r]) => r);
  assert.equal(response?.status(), 403);
  assert.equal(await page.textContent("h1"), "Forbidden");
  // And a wrong password keeps the form, with the error.
  const other = await browser.newPage();
  await other.goto(`${instance.origin}/admin`);
  await signInWithForm(other, "mona", "not the password");
  includes((await other.textContent("[role=alert]"))!, "Invalid");
});

test("staff pages: open redirects, forged posts and headers", async () => {
  // The sign-in form never sends a browser to another site.
  for (
    const target of [
      "//evil.example/x",
      "https://evil.example/",
      "/\\evil.example",
      "/\t/evil.example",
    ]
  ) {
    const page = await instance.request(
      `/auth/sign_in?redirect_to=${encodeURIComponent(target)}`,
    );
    const html = await page.text();
    includes(html, `name="redirect_to" value="/"`);
  }
  // A stranger's POST to a staff page is refused, not redirected.
  const post = await instance.request("/admin", { method: "POST" });
  assert.equal(post.status, 403);
  await post.body?.cancel();
  const get = await instance.request("/admin", { redirect: "manual" });
  assert.equal(get.status, 303);
  assert.equal(get.headers.get("location"), "/auth/sign_in?redirect_to=%2Fadmin");
  await get.body?.cancel();

  // Signed in over plain HTTP (cookie + form token), the page answers with strict headers.
  const session = await signInOverHttp(instance, "mona");
  const dashboard = await session.get("/admin");
  assert.equal(dashboard.status, 200);
  assert.equal(dashboard.headers.get("x-frame-options"), "DENY");
  includes(dashboard.headers.get("content-security-policy")!, "form-action 'self'");
  const html = await dashboard.text();
  assert.ok(html.startsWith("<!DOCTYPE html>"));
  // A form post without the session's token is refused.
  const forged = await instance.request("/admin", {
    method: "POST",
    headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: "authenticity_token=wrong",
  });
  assert.equal(forged.status, 403);
  await forged.body?.cancel();
});
