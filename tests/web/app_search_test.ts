/**
 * The web app's search page over HTTP (no browser): the same accounts,
 * hashtags and posts as GET /api/v2/search for the same viewer, five of
 * each with More links, one kind paged by offset; a handle that finds one
 * account goes to its profile; a refused query is said, never a 500.
 */
import assert from "node:assert/strict";
import { afterAll, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));

const ann = await createUser(instance, "ann");
const bob = await createUser(instance, "bob");
const posts: { id: string }[] = [];
for (let i = 0; i < 7; i++) {
  posts.push(await postStatus(instance, bob.token, `Sailing trip number ${i} #sailing`));
}
// Ann has interacted with them, so her search finds them (as Mastodon's).
for (const post of posts) {
  await ok(instance, ann.token, "POST", `/api/v1/statuses/${post.id}/favourite`);
}
for (const name of ["sailor1", "sailor2", "sailor3", "sailor4", "sailor5", "sailor6"]) {
  await createUser(instance, name);
}
const session = await signInOverHttp(instance, "ann", "/search");

async function apiSearch(query: string) {
  return await ok(instance, ann.token, "GET", `/api/v2/search?${query}`);
}

function articleIds(html: string): string[] {
  return [...html.matchAll(/<article class="status[^"]*" id="status-\d+" data-id="(\d+)"/g)]
    .map((m) => m[1]);
}

function accountRows(html: string): string[] {
  return [...html.matchAll(/<li class="account-row"[^>]*>.*?<span class="muted">@([^<]+)<\/span>/g)]
    .map((m) => m[1]);
}

test("the search page shows what the API finds", async (t) => {
  await t.step("no query: the form only", async () => {
    const res = await session.get("/search");
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.ok(html.includes('role="search"'));
    assert.ok(!html.includes("Nothing found."));
  });

  await t.step("everything: five of each, with More", async () => {
    const html = await session.get("/search?q=sailing").then((r) => r.text());
    const api = await apiSearch("q=sailing&limit=5");
    assert.deepEqual(articleIds(html), api.statuses.map((s: { id: string }) => s.id));
    assert.equal(articleIds(html).length, 5);
    assert.ok(html.includes('<a href="/tags/sailing">#sailing</a>'));
    assert.ok(html.includes('href="/search?q=sailing&amp;type=statuses">More posts</a>'));
  });

  await t.step("one kind, paged by offset", async () => {
    const html = await session.get("/search?q=sailor&type=accounts").then((r) => r.text());
    const api = await apiSearch("q=sailor&type=accounts&limit=20");
    assert.deepEqual(accountRows(html), api.accounts.map((a: { acct: string }) => a.acct));
    assert.equal(accountRows(html).length, 6);
    assert.ok(!html.includes("More people"));
    const posts = await session.get("/search?q=sailing&type=statuses&offset=5")
      .then((r) => r.text());
    const rest = await apiSearch("q=sailing&type=statuses&offset=5");
    assert.deepEqual(articleIds(posts), rest.statuses.map((s: { id: string }) => s.id));
    assert.equal(articleIds(posts).length, 2);
  });

  await t.step("a handle that finds one account: its profile", async () => {
    const res = await session.get("/search?q=%40bob%40localhost");
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/@bob");
  });

  await t.step("nothing found; a refused type is said, not a 500", async () => {
    const none = await session.get("/search?q=zzzqqq").then((r) => r.text());
    assert.ok(none.includes("Nothing found."));
    const odd = await session.get("/search?q=sailing&type=bogus");
    assert.equal(odd.status, 200, "an unknown type shows everything");
    await odd.body?.cancel();
    const long = await session.get(`/search?q=${"x".repeat(20_000)}`);
    assert.ok(long.status < 500);
    await long.body?.cancel();
  });

  await t.step("a visitor is sent to sign in", async () => {
    const res = await instance.request("/search?q=sailing", { redirect: "manual" });
    assert.equal(res.status, 303);
    await res.body?.cancel();
  });
});
