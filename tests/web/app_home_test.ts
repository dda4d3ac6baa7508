/**
 * The web app's Home and public timelines and its composer, over HTTP (no
 * browser): the signed-in `/` is Home and a visitor's is still the landing
 * page; the page shows the API's home timeline (same ids, same cursors,
 * 40 a page) with the app CSP and no-store; a content warning and
 * sensitive media stay folded; /home redirects; the app gate sends
 * visitors to sign in and refuses their posts; posting from the composer
 * makes one status per idempotency key and keeps the text of a refused one.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { roleSettings, users } from "../../db/schema/mod.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { links, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { mediaRow } from "../fixtures/media.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));

const ann = await createUser(instance, "ann");
const bob = await createUser(instance, "bob");
const cat = await createUser(instance, "cat");
await ok(instance, ann.token, "POST", `/api/v1/accounts/${bob.id}/follow`);
for (let i = 1; i <= 44; i++) await postStatus(instance, bob.token, `Bob's post number ${i}`);
const warned = await postStatus(instance, bob.token, "Behind a warning", {
  spoiler_text: "Spoilers ahead",
});
const media = await mediaRow(instance, bob);
const sensitive = await postStatus(instance, bob.token, "A sensitive picture", {
  media_ids: [media],
  sensitive: true,
});
const followersOnly = await postStatus(instance, bob.token, "Only for followers", {
  visibility: "private",
});
await postStatus(instance, cat.token, "Cat is not followed by Ann");
const tagged = await postStatus(instance, cat.token, "Socks again #knitting");
const list = await ok(instance, ann.token, "POST", "/api/v1/lists", { title: "Bob" });
await ok(instance, ann.token, "POST", `/api/v1/lists/${list.id}/accounts`, {
  account_ids: [bob.id],
});

const session = await signInOverHttp(instance, "ann", "/");

/** The data-id of each article of a page, in order. */
function articleIds(html: string): string[] {
  return [...html.matchAll(/<article class="status[^"]*" id="status-\d+" data-id="(\d+)"/g)]
    .map((m) => m[1]);
}

async function apiHome(query: string): Promise<{ ids: string[]; link: Record<string, URL> }> {
  const res = await instance.request(`/api/v1/timelines/home${query}`, {
    headers: { authorization: `Bearer ${ann.token}` },
  });
  assert.equal(res.status, 200);
  const body = await res.json();
  return { ids: body.map((s: { id: string }) => s.id), link: links(res.headers.get("link")) };
}

/** The href of the pager link with `rel`, decoded. */
function pagerHref(html: string, rel: "prev" | "next"): URL | null {
  const m = html.match(new RegExp(`<a href="([^"]+)" rel="${rel}"`));
  return m ? new URL(m[1].replaceAll("&amp;", "&")) : null;
}

test("a visitor's / is the landing page; a signed-in one's is Home", async (t) => {
  await t.step("visitor", async () => {
    const res = await instance.request("/");
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.ok(!html.includes('role="feed"'));
    assert.ok(!res.headers.get("content-security-policy")!.includes("script-src"));
  });

  await t.step("signed in: the API's home timeline, 40 a page, app headers", async () => {
    const res = await session.get("/");
    const html = await res.text();
    assert.equal(res.status, 200);
    const csp = res.headers.get("content-security-policy")!;
    assert.ok(csp.includes(`script-src ${instance.origin}/assets/rookery.js`), csp);
    assert.ok(csp.includes("require-trusted-types-for 'script'"), csp);
    assert.equal(res.headers.get("cache-control"), "private, no-store");
    assert.ok(html.includes("<h1>Home</h1>"));
    assert.ok(html.includes('id="composer"'));
    const ids = articleIds(html);
    assert.equal(ids.length, 40);
    const api = await apiHome("?limit=40");
    assert.deepEqual(ids, api.ids);
    assert.ok(ids.includes(followersOnly.id), "a followers-only post of a followee");
    assert.ok(!html.includes("Cat is not followed"), "no post of someone not followed");
    // The first page has no Newer link; Older carries the API's next cursor.
    assert.equal(pagerHref(html, "prev"), null);
    const older = pagerHref(html, "next")!;
    assert.equal(older.searchParams.get("max_id"), api.link.next.searchParams.get("max_id"));
  });

  await t.step("Older, then Newer, with the API's cursors", async () => {
    const first = await session.get("/").then((r) => r.text());
    const older = pagerHref(first, "next")!;
    const res = await session.get(older.pathname + older.search);
    const html = await res.text();
    const ids = articleIds(html);
    const api = await apiHome(`?limit=40&max_id=${older.searchParams.get("max_id")}`);
    assert.deepEqual(ids, api.ids);
    assert.equal(ids.length, 7);
    assert.equal(pagerHref(html, "next"), null, "the end: no Older link");
    const newer = pagerHref(html, "prev")!;
    assert.equal(newer.searchParams.get("min_id"), api.link.prev.searchParams.get("min_id"));
    const back = articleIds(await session.get(newer.pathname + newer.search).then((r) => r.text()));
    assert.deepEqual(back, (await apiHome(`?limit=40&min_id=${ids[0]}`)).ids);
  });

  await t.step("content warnings and sensitive media stay folded", async () => {
    const html = await session.get("/").then((r) => r.text());
    const article = (id: string) => {
      const start = html.indexOf(`id="status-${id}"`);
      return html.slice(start, html.indexOf("</article>", start));
    };
    assert.match(
      article(warned.id),
      /<details class="cw"\s*><summary><span dir="auto">Spoilers ahead/,
    );
    // Folded over its blurhash placeholder (a data: PNG, the CSP forbids style=).
    assert.match(
      article(sensitive.id),
      /<details class="sensitive"><summary><span class="placeholders count-1" aria-hidden="true"><img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="" width="16" height="12"\/?><\/span><span class="label">Sensitive content · Show/,
    );
  });

  await t.step("the reader's preferences: show all media, expand warnings", async () => {
    const { db } = instance.rookery.ctx.database;
    await db.update(users).set({ settings: { display_media: "show_all", expand_spoilers: true } })
      .where(eq(users.id, ann.userId));
    const html = await session.get("/").then((r) => r.text());
    await db.update(users).set({ settings: {} }).where(eq(users.id, ann.userId));
    const start = html.indexOf(`id="status-${sensitive.id}"`);
    const article = html.slice(start, html.indexOf("</article>", start));
    assert.ok(!article.includes('class="sensitive"'), "sensitive media shown at once");
    assert.match(article, /<div class="media count-1">/);
    assert.match(html, /<details class="cw" open><summary><span dir="auto">Spoilers ahead/);
  });

  await t.step("the script's fragments: older posts appended, newer prepended", async () => {
    const fragment = async (query: string) => {
      const res = await instance.request(`/${query}`, {
        headers: { cookie: session.cookie, "rookery-fragment": "1" },
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get("vary") ?? "", /Rookery-Fragment/);
      return await res.text();
    };
    const first = articleIds(await session.get("/").then((r) => r.text()));
    const older = await fragment(`?max_id=${first[39]}`);
    assert.ok(!older.startsWith("<!DOCTYPE"));
    assert.ok(older.startsWith('<div data-append="feed">'));
    assert.deepEqual(articleIds(older), (await apiHome(`?limit=40&max_id=${first[39]}`)).ids);
    const newer = await fragment(`?min_id=${first[5]}`);
    assert.ok(newer.startsWith('<div data-prepend="feed">'));
    assert.deepEqual(articleIds(newer), first.slice(0, 5));
  });
});

test("/home, the public timelines and the gate", async (t) => {
  await t.step("/home redirects to / with its query", async () => {
    const res = await session.get("/home?max_id=5");
    await res.body?.cancel();
    assert.equal(res.status, 301);
    assert.equal(res.headers.get("location"), "/?max_id=5");
  });

  await t.step("local timeline: the API's public local ids", async () => {
    const html = await session.get("/public/local").then((r) => r.text());
    assert.ok(html.includes("<h1>Local timeline</h1>"));
    const api = await ok(
      instance,
      ann.token,
      "GET",
      "/api/v1/timelines/public?local=true&limit=40",
    );
    assert.deepEqual(articleIds(html), api.map((s: { id: string }) => s.id));
    assert.ok(html.includes("Cat is not followed"));
    assert.ok(!html.includes("Only for followers"));
  });

  await t.step("a role that requires two-factor sign-in sets it up first", async () => {
    const { db } = instance.rookery.ctx.database;
    const boss = await createUser(instance, "boss");
    await db.update(users).set({ role: "admin" }).where(eq(users.id, boss.userId));
    await db.update(roleSettings).set({ requireTwoFactor: true })
      .where(eq(roleSettings.role, "admin"));
    const bossSession = await signInOverHttp(instance, "boss", "/");
    for (const path of ["/", "/public/local", `/@bob/${warned.id}`]) {
      const res = await bossSession.get(path);
      await res.body?.cancel();
      assert.equal(res.status, 303, path);
      assert.equal(res.headers.get("location"), "/settings/otp_authentication", path);
    }
  });

  await t.step("a visitor is sent to sign in, and a visitor's post refused", async () => {
    const res = await instance.request("/public/local", { redirect: "manual" });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/auth/sign_in?redirect_to=%2Fpublic%2Flocal");
    const posted = await instance.request("/statuses", {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ status: "anonymous" }),
    });
    await posted.body?.cancel();
    assert.equal(posted.status, 403);
  });
});

test("hashtag and list timelines", async (t) => {
  await t.step("a signed-in hashtag page: the API's tag timeline", async () => {
    const res = await session.get("/tags/knitting");
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.ok(html.includes("<h1>#knitting</h1>"));
    const api = await ok(instance, ann.token, "GET", "/api/v1/timelines/tag/knitting?limit=40");
    assert.deepEqual(articleIds(html), api.map((s: { id: string }) => s.id));
    assert.deepEqual(articleIds(html), [tagged.id]);
  });

  await t.step("an unknown hashtag: an empty feed, not a 404", async () => {
    const res = await session.get("/tags/nobodyusesthis");
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.ok(html.includes("No posts with #nobodyusesthis yet."));
  });

  await t.step("a visitor's hashtag page is still the public one", async () => {
    const res = await instance.request("/tags/knitting");
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.ok(!html.includes('role="feed"'));
    assert.ok(html.includes("Socks again"));
  });

  await t.step("the owner's list timeline; anyone else's is a 404", async () => {
    const html = await session.get(`/lists/${list.id}`).then((r) => r.text());
    const api = await ok(instance, ann.token, "GET", `/api/v1/timelines/list/${list.id}?limit=40`);
    assert.equal(articleIds(html).length, 40);
    assert.deepEqual(articleIds(html), api.map((s: { id: string }) => s.id));
    const other = await signInOverHttp(instance, "cat", "/");
    const refused = await other.get(`/lists/${list.id}`);
    await refused.body?.cancel();
    assert.equal(refused.status, 404);
  });
});

test("posting from the composer", async (t) => {
  const own = async () =>
    (await ok(instance, ann.token, "GET", `/api/v1/accounts/${ann.id}/statuses`)) as {
      id: string;
      content: string;
      spoiler_text: string;
      visibility: string;
    }[];

  await t.step("without the form token: 403, nothing posted", async () => {
    const res = await session.post("/statuses", {
      authenticity_token: "forged",
      status: "Forged post",
    });
    await res.body?.cancel();
    assert.equal(res.status, 403);
    assert.equal((await own()).length, 0);
  });

  await t.step("a post, twice with one key: one status, back to return_to", async () => {
    const fields = {
      status: "Hello from the web",
      spoiler_text: "Greeting",
      visibility: "unlisted",
      idempotency_key: crypto.randomUUID(),
      return_to: "/public/local",
    };
    const first = await session.post("/statuses", fields);
    await first.body?.cancel();
    assert.equal(first.status, 303);
    assert.equal(first.headers.get("location"), "/public/local?notice=posted");
    const again = await session.post("/statuses", fields);
    await again.body?.cancel();
    assert.equal(again.status, 303);
    const mine = await own();
    assert.equal(mine.length, 1);
    assert.equal(mine[0].content, "<p>Hello from the web</p>");
    assert.equal(mine[0].spoiler_text, "Greeting");
    assert.equal(mine[0].visibility, "unlisted");
    const notice = await session.get("/public/local?notice=posted").then((r) => r.text());
    assert.ok(notice.includes("Your post was published."));
  });

  await t.step("the script's post: a fresh composer and the new article", async () => {
    const res = await instance.request("/statuses", {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        "rookery-fragment": "1",
      },
      body: new URLSearchParams({
        authenticity_token: session.token,
        status: "Posted by the script",
        idempotency_key: "script-1",
        return_to: "/",
      }),
    });
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.ok(!html.startsWith("<!DOCTYPE"));
    assert.match(html, /^<form id="composer"[^>]*data-replace="composer"/);
    assert.ok(!html.includes('value="script-1"'), "a new idempotency key");
    const mine = await own();
    assert.match(
      html,
      new RegExp(`<div data-prepend="feed"><article class="status" id="status-${mine[0].id}"`),
    );
    await ok(instance, ann.token, "DELETE", `/api/v1/statuses/${mine[0].id}`);
  });

  await t.step("the composer starts from the user's posting preferences", async () => {
    const before = await session.get("/").then((r) => r.text());
    assert.match(before, /<option value="public" selected>/);
    await ok(instance, ann.token, "PATCH", "/api/v1/accounts/update_credentials", {
      source: { privacy: "private", sensitive: true },
    });
    const after = await session.get("/statuses/new").then((r) => r.text());
    assert.match(after, /<option value="private" selected>/);
    assert.match(after, /<input type="checkbox" name="sensitive" value="true" checked>/);
    await ok(instance, ann.token, "PATCH", "/api/v1/accounts/update_credentials", {
      source: { privacy: "public", sensitive: false },
    });
  });

  await t.step("an open redirect is refused: back to /", async () => {
    const res = await session.post("/statuses", {
      status: "Second post",
      return_to: "//evil.example/",
    });
    await res.body?.cancel();
    assert.equal(res.headers.get("location"), "/?notice=posted");
  });

  await t.step("too long: 422, the message and the text kept", async () => {
    const text = "x".repeat(501);
    const res = await session.post("/statuses", { status: text });
    const html = await res.text();
    assert.equal(res.status, 422);
    assert.ok(html.includes('role="alert"'));
    assert.ok(html.includes("Text character limit of 500 exceeded"), html.slice(0, 2000));
    assert.ok(html.includes(text));
    assert.equal((await own()).length, 2);
  });

  await t.step("a reply to an unknown post: 404 page, never a 500", async () => {
    const res = await session.post("/statuses", { status: "Reply", in_reply_to_id: "1" });
    await res.body?.cancel();
    assert.equal(res.status, 404);
  });
});

test("a post's address, sharing, and deleting one's own post", async (t) => {
  const mine = await postStatus(instance, ann.token, "Soon gone");

  await t.step("/statuses/:id goes to the post's page", async () => {
    const res = await session.get(`/statuses/${warned.id}`);
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/@bob/${warned.id}`);
  });

  await t.step("/share opens the composer with the text and the link", async () => {
    const res = await session.get("/share?text=Look&url=https%3A%2F%2Fyarn.example%2F");
    await res.body?.cancel();
    assert.equal(res.status, 303);
    const composer = await session.get(res.headers.get("location")!).then((r) => r.text());
    assert.match(
      composer,
      /<textarea id="status" name="status"[^>]*>Look https:\/\/yarn\.example\/<\/textarea>/,
    );
  });

  await t.step("editing one's own post", async () => {
    const page = await session.get(`/statuses/${mine.id}/edit`);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.ok(html.includes(`action="/statuses/${mine.id}/update"`));
    assert.match(html, /<textarea id="status" name="status"[^>]*>Soon gone<\/textarea>/);
    assert.ok(!html.includes('name="visibility"'), "the visibility stays");
    const res = await session.post(`/statuses/${mine.id}/update`, { status: "Soon gone, edited" });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/@ann/${mine.id}?notice=edited`);
    const edited = await ok(instance, ann.token, "GET", `/api/v1/statuses/${mine.id}`);
    assert.equal(edited.content, "<p>Soon gone, edited</p>");
    assert.ok(edited.edited_at);
    const tooLong = await session.post(`/statuses/${mine.id}/update`, { status: "y".repeat(501) });
    const refused = await tooLong.text();
    assert.equal(tooLong.status, 422);
    assert.ok(refused.includes("y".repeat(501)));
    const others = await session.get(`/statuses/${warned.id}/edit`);
    await others.body?.cancel();
    assert.equal(others.status, 404);
    const forced = await session.post(`/statuses/${warned.id}/update`, { status: "Mine now" });
    await forced.body?.cancel();
    assert.equal(forced.status, 404);
    assert.equal(
      (await ok(instance, bob.token, "GET", `/api/v1/statuses/${warned.id}`)).content,
      "<p>Behind a warning</p>",
    );
  });

  await t.step("someone else's post cannot be deleted", async () => {
    const page = await session.get(`/statuses/${warned.id}/delete`);
    await page.body?.cancel();
    assert.equal(page.status, 404);
    const res = await session.post(`/statuses/${warned.id}/delete`);
    await res.body?.cancel();
    assert.equal(res.status, 404);
    await ok(instance, bob.token, "GET", `/api/v1/statuses/${warned.id}`);
  });

  await t.step("the confirmation, a forged post, then the delete", async () => {
    const page = await session.get(`/statuses/${mine.id}/delete?return_to=/@ann/${mine.id}`);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.ok(html.includes(`action="/statuses/${mine.id}/delete"`));
    const forged = await session.post(`/statuses/${mine.id}/delete`, {
      authenticity_token: "forged",
    });
    await forged.body?.cancel();
    assert.equal(forged.status, 403);
    await ok(instance, ann.token, "GET", `/api/v1/statuses/${mine.id}`);
    const res = await session.post(`/statuses/${mine.id}/delete`, {
      return_to: `/@ann/${mine.id}`,
    });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/?notice=deleted");
    const gone = await instance.request(`/api/v1/statuses/${mine.id}`, {
      headers: { authorization: `Bearer ${ann.token}` },
    });
    await gone.body?.cancel();
    assert.equal(gone.status, 404);
  });
});
