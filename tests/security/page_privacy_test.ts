/**
 * Issue 29: pages rendered for a signed-in browser stay in that browser.
 * Every page requested with the session cookie, public pages included (they
 * carry the user's name and form token in the header), is
 * `Cache-Control: private, no-store`; cacheable pages say they vary by
 * cookie. With PUBLIC_PREVIEW=false the hashtag pages and feeds are closed
 * to visitors as the public timelines are: the page sends them to the
 * sign-in form, the feed answers 401, and what a signed-in browser gets is
 * never cacheable.
 */
import assert from "node:assert/strict";
import { afterAll, startInstance, test } from "../harness.ts";
import { createUser } from "../fixtures/users.ts";
import { postStatus } from "../fixtures/api.ts";
import { includes, signInOverHttp } from "../admin_web/http_session.ts";

const open = await startInstance({ worker: false });
const closed = await startInstance({ env: { PUBLIC_PREVIEW: "false" }, worker: false });
afterAll(async () => {
  await open.close({ destroy: true });
  await closed.close({ destroy: true });
});
const author = await createUser(open, "author");
const post = await postStatus(open, author, "Casting on a #Sweater today");
await createUser(closed, "reader");
await postStatus(closed, await createUser(closed, "knitter"), "Blocking a #Shawl");

test("pages for a signed-in browser are private, no-store; others vary by cookie", async () => {
  await createUser(open, "viewer");
  const session = await signInOverHttp(open, "viewer", "/");
  const pages = ["/", "/about", "/@author", "/@author/with_replies", `/@author/${post.id}`];
  pages.push("/tags/sweater", "/settings/account", "/settings/import");
  for (const path of pages) {
    const res = await session.get(path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("cache-control"), "private, no-store", path);
    // What must not be shared: the form token of the header's sign-out form.
    includes(await res.text(), session.token);
  }
  for (const path of pages.slice(0, 6)) {
    const res = await open.request(path);
    assert.equal(res.status, 200, path);
    assert.ok(!res.headers.get("cache-control")?.includes("private"), path);
    assert.match(res.headers.get("vary") ?? "", /\bCookie\b/, path);
    assert.ok(!(await res.text()).includes(session.token), path);
  }
  // A cookie the server no longer knows gets nothing personal, and no shared copy either.
  const stale = await open.request("/@author", { headers: { cookie: "_rookery_session=gone" } });
  assert.equal(stale.headers.get("cache-control"), "private, no-store");
  await stale.body?.cancel();
});

test("PUBLIC_PREVIEW=false closes the hashtag pages and feeds to visitors", async () => {
  for (const path of ["/tags/shawl", "/tags/Shawl?max_id=1", "/tags/nosuchtag"]) {
    const res = await closed.request(path, { redirect: "manual" });
    assert.equal(res.status, 303, path);
    assert.equal(
      res.headers.get("location"),
      `/auth/sign_in?redirect_to=${encodeURIComponent(path)}`,
      path,
    );
    await res.body?.cancel();
  }
  for (const path of ["/tags/shawl.rss", "/tags/shawl.rss?local=true", "/tags/nosuchtag.rss"]) {
    const res = await closed.request(path);
    assert.equal(res.status, 401, path);
    assert.ok(!(await res.text()).includes("Blocking a"), path);
  }
  // The API says the same of the hashtag timeline.
  const api = await closed.request("/api/v1/timelines/tag/shawl");
  assert.equal(api.status, 401);
  await api.body?.cancel();

  const session = await signInOverHttp(closed, "reader", "/tags/shawl");
  const page = await session.get("/tags/shawl");
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("cache-control"), "private, no-store");
  includes(await page.text(), "Blocking a");
  const feed = await session.get("/tags/shawl.rss");
  assert.equal(feed.status, 200);
  assert.equal(feed.headers.get("cache-control"), "private, no-store");
  includes(await feed.text(), "Blocking a");

  // With the preview on, visitors read both, and the feed may be cached.
  const openPage = await open.request("/tags/sweater");
  assert.equal(openPage.status, 200);
  await openPage.body?.cancel();
  const openFeed = await open.request("/tags/sweater.rss");
  assert.equal(openFeed.status, 200);
  assert.equal(openFeed.headers.get("cache-control"), "public, max-age=60");
  await openFeed.body?.cancel();
});
