/**
 * The web app's action bar and poll votes over HTTP (no browser): each
 * button is a POST that works without the script (303 back to the page at
 * the post's anchor, the new state shown as `aria-pressed` and counts, the
 * API agreeing), and with the fragment header answers the article to swap
 * (the boost's article for a boost). Refusals come back as alert keys (or
 * the fragment with the refusal's status), never a 500; a post without the
 * form token is refused; Edit and Delete are offered on one's own posts only.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { polls } from "../../db/schema/mod.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));

const ann = await createUser(instance, "ann");
const bob = await createUser(instance, "bob");
await ok(instance, ann.token, "POST", `/api/v1/accounts/${bob.id}/follow`);
const post = await postStatus(instance, bob.token, "Bob says hello");
const secret = await postStatus(instance, bob.token, "Followers only", { visibility: "private" });
const own = await postStatus(instance, ann.token, "Ann's own post");
const session = await signInOverHttp(instance, "ann", "/");

/** The article of status `id` (by its element id) in a page. */
function article(html: string, id: string): string {
  const start = html.indexOf(`id="status-${id}"`);
  assert.ok(start >= 0, `no article status-${id}`);
  return html.slice(html.lastIndexOf("<article", start), html.indexOf("</article>", start));
}

async function apiStatus(id: string): Promise<Record<string, unknown>> {
  return await ok(instance, ann.token, "GET", `/api/v1/statuses/${id}`);
}

const back = (id: string) => `/?max_id=999999999999999999#status-${id}`;

test("the action bar: one form, each toggle posting the opposite command", async () => {
  const html = await session.get("/").then((r) => r.text());
  const bar = article(html, post.id);
  assert.match(bar, /<form method="post" action="\/statuses\/\d+\/favourite" class="actions/);
  assert.equal(bar.match(/name="authenticity_token"/g)?.length, 1, "one token per post");
  assert.ok(bar.includes(`formaction="/statuses/${post.id}/favourite" aria-pressed="false"`));
  assert.ok(bar.includes(`formaction="/statuses/${post.id}/reblog" aria-pressed="false"`));
  assert.ok(bar.includes(`formaction="/statuses/${post.id}/bookmark" aria-pressed="false"`));
  assert.ok(bar.includes(`name="return_to" value="/#status-${post.id}"`));
  assert.ok(!bar.includes("/edit"), "no Edit on someone else's post");
  // Someone else's followers-only post cannot be boosted: no Boost button.
  const hidden = article(html, secret.id);
  assert.ok(!hidden.includes(`/statuses/${secret.id}/reblog`));
  const mine = article(html, own.id);
  assert.ok(mine.includes(`href="/statuses/${own.id}/edit"`));
  assert.ok(mine.includes(`href="/statuses/${own.id}/delete?return_to=`));
  assert.ok(mine.includes(`formaction="/statuses/${own.id}/pin" aria-pressed="false"`));
});

test("without the script: favourite, boost, bookmark and back at the post", async (t) => {
  for (
    const [on, off, field] of [
      ["favourite", "unfavourite", "favourited"],
      ["reblog", "unreblog", "reblogged"],
      ["bookmark", "unbookmark", "bookmarked"],
      ["mute", "unmute", "muted"],
    ] as const
  ) {
    await t.step(on, async () => {
      const res = await session.post(`/statuses/${post.id}/${on}`, { return_to: back(post.id) });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), back(post.id));
      assert.equal((await apiStatus(post.id))[field], true);
      const page = await session.get("/").then((r) => r.text());
      const bar = article(page, post.id);
      assert.ok(bar.includes(`formaction="/statuses/${post.id}/${off}" aria-pressed="true"`), bar);
      const undo = await session.post(`/statuses/${post.id}/${off}`, { return_to: back(post.id) });
      assert.equal(undo.status, 303);
      assert.equal((await apiStatus(post.id))[field], false);
    });
  }

  await t.step("the count follows", async () => {
    await session.post(`/statuses/${post.id}/favourite`, { return_to: "/" });
    const bar = article(await session.get("/").then((r) => r.text()), post.id);
    assert.match(bar, /Favourite <span class="count">1<\/span>/);
    await session.post(`/statuses/${post.id}/unfavourite`, { return_to: "/" });
  });

  await t.step("pin one's own post", async () => {
    const res = await session.post(`/statuses/${own.id}/pin`, { return_to: "/" });
    assert.equal(res.status, 303);
    assert.equal((await apiStatus(own.id)).pinned, true);
    await session.post(`/statuses/${own.id}/unpin`, { return_to: "/" });
    assert.equal((await apiStatus(own.id)).pinned, false);
  });
});

test("with the script: the article comes back to replace the one acted on", async (t) => {
  const fragment = (path: string, fields: Record<string, string>) =>
    instance.request(path, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        "rookery-fragment": "1",
      },
      body: new URLSearchParams({ authenticity_token: session.token, ...fields }),
    });

  await t.step("favourite: the article, pressed, no doctype", async () => {
    const res = await fragment(`/statuses/${post.id}/favourite`, { return_to: back(post.id) });
    assert.equal(res.status, 200);
    assert.ok(res.headers.get("vary")?.includes("Rookery-Fragment"));
    const html = await res.text();
    assert.ok(!html.startsWith("<!DOCTYPE"));
    assert.match(html, new RegExp(`^<article[^>]*data-replace="status-${post.id}"`));
    assert.ok(html.includes(`formaction="/statuses/${post.id}/unfavourite" aria-pressed="true"`));
    assert.ok(html.includes(`value="/?max_id=999999999999999999#status-${post.id}"`));
    await fragment(`/statuses/${post.id}/unfavourite`, { return_to: back(post.id) });
  });

  await t.step("a boosted post's bar replaces the boost's article", async () => {
    const boost = await ok(instance, bob.token, "POST", `/api/v1/statuses/${own.id}/reblog`);
    const res = await fragment(`/statuses/${own.id}/bookmark`, { return_to: back(boost.id) });
    const html = await res.text();
    assert.match(html, new RegExp(`^<article[^>]*id="status-${boost.id}"`));
    assert.ok(html.includes(`data-replace="status-${boost.id}"`));
    assert.ok(html.includes(`formaction="/statuses/${own.id}/unbookmark" aria-pressed="true"`));
  });

  await t.step("a refusal: the article again, with the refusal's status", async () => {
    const res = await fragment(`/statuses/${secret.id}/reblog`, { return_to: back(secret.id) });
    assert.equal(res.status, 403);
    assert.ok((await res.text()).includes(`data-replace="status-${secret.id}"`));
  });
});

test("refusals: alert keys, never a 500; the form token is required", async (t) => {
  await t.step("someone else's followers-only post cannot be boosted", async () => {
    const res = await session.post(`/statuses/${secret.id}/reblog`, { return_to: back(secret.id) });
    assert.equal(res.status, 303);
    assert.equal(
      res.headers.get("location"),
      `/?max_id=999999999999999999&alert=not_allowed#status-${secret.id}`,
    );
    assert.equal((await apiStatus(secret.id)).reblogged, false);
  });

  await t.step("a post the viewer may not see is not found", async () => {
    const cat = await createUser(instance, "cat");
    const direct = await postStatus(instance, cat.token, "Only for Bob", { visibility: "direct" });
    const res = await session.post(`/statuses/${direct.id}/favourite`, { return_to: "/" });
    assert.equal(res.headers.get("location"), "/?alert=not_found");
    const missing = await session.post("/statuses/123456789/bookmark", { return_to: "/" });
    assert.equal(missing.headers.get("location"), "/?alert=not_found");
  });

  await t.step("another site's return_to is not followed", async () => {
    const res = await session.post(`/statuses/${post.id}/bookmark`, { return_to: "//evil.test/" });
    assert.equal(res.headers.get("location"), "/");
    await session.post(`/statuses/${post.id}/unbookmark`);
  });

  await t.step("without the form token: 403 and nothing done", async () => {
    const res = await session.post(`/statuses/${post.id}/favourite`, {
      authenticity_token: "forged",
    });
    assert.equal(res.status, 403);
    await res.body?.cancel();
    assert.equal((await apiStatus(post.id)).favourited, false);
  });

  await t.step("a visitor's post is refused", async () => {
    const res = await instance.request(`/statuses/${post.id}/favourite`, { method: "POST" });
    assert.equal(res.status, 403);
    await res.body?.cancel();
  });
});

test("poll votes: one choice, several, an ended poll", async (t) => {
  const single = await postStatus(instance, bob.token, "Tea or coffee?", {
    poll: { options: ["Tea", "Coffee"], expires_in: 3600 },
  });
  const multiple = await postStatus(instance, bob.token, "Which fruits?", {
    poll: { options: ["Apple", "Pear", "Plum"], expires_in: 3600, multiple: true },
  });
  const vote = (pollId: string, choices: string[], returnTo: string) => {
    const body = new URLSearchParams({ authenticity_token: session.token, return_to: returnTo });
    for (const choice of choices) body.append("choices[]", choice);
    return instance.request(`/polls/${pollId}/votes`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
      body,
    });
  };

  await t.step("the form is on the page, and one vote is counted", async () => {
    const page = await session.get("/").then((r) => r.text());
    assert.ok(article(page, single.id).includes(`action="/polls/${single.poll.id}/votes"`));
    const res = await vote(single.poll.id, ["1"], back(single.id));
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), back(single.id));
    const poll = await ok(instance, ann.token, "GET", `/api/v1/polls/${single.poll.id}`);
    assert.deepEqual(poll.own_votes, [1]);
    const after = article(await session.get("/").then((r) => r.text()), single.id);
    assert.ok(!after.includes(`action="/polls/${single.poll.id}/votes"`), "voted: no form");
    assert.ok(after.includes("(your vote)"));
  });

  await t.step("several choices", async () => {
    const res = await vote(multiple.poll.id, ["0", "2"], "/");
    assert.equal(res.status, 303);
    const poll = await ok(instance, ann.token, "GET", `/api/v1/polls/${multiple.poll.id}`);
    assert.deepEqual(poll.own_votes, [0, 2]);
  });

  await t.step("an ended poll, an unknown option, no choice", async () => {
    const late = await postStatus(instance, bob.token, "Too late?", {
      poll: { options: ["Yes", "No"], expires_in: 3600 },
    });
    const wrong = await vote(late.poll.id, ["7"], "/");
    assert.equal(wrong.headers.get("location"), "/?alert=invalid");
    const none = await vote(late.poll.id, [], "/");
    assert.equal(none.headers.get("location"), "/?alert=invalid");
    await instance.rookery.ctx.database.db.update(polls).set({ closedAt: new Date() })
      .where(eq(polls.id, late.poll.id));
    const res = await vote(late.poll.id, ["0"], "/");
    assert.equal(res.headers.get("location"), "/?alert=vote_ended");
    const page = await session.get("/?alert=vote_ended").then((r) => r.text());
    assert.ok(page.includes("The poll has ended."));
  });
});

test("the bookmarks and favourites pages: the API's posts, its order and cursors", async (t) => {
  const saved: { id: string }[] = [];
  for (let i = 0; i < 22; i++) saved.push(await postStatus(instance, bob.token, `Keep ${i}`));
  for (const s of saved) {
    await session.post(`/statuses/${s.id}/bookmark`, { return_to: "/" });
    await session.post(`/statuses/${s.id}/favourite`, { return_to: "/" });
  }
  for (const kind of ["bookmarks", "favourites"]) {
    await t.step(kind, async () => {
      const res = await session.get(`/${kind}`);
      assert.equal(res.status, 200);
      const html = await res.text();
      const ids = [
        ...html.matchAll(/<article class="status[^"]*" id="status-\d+" data-id="(\d+)"/g),
      ]
        .map((m) => m[1]);
      const api = await instance.request(`/api/v1/${kind}`, {
        headers: { authorization: `Bearer ${ann.token}` },
      });
      const link = api.headers.get("link")!;
      assert.deepEqual(ids, (await api.json()).map((s: { id: string }) => s.id));
      assert.equal(ids.length, 20);
      assert.equal(ids[0], saved[21].id);
      const older = html.match(/<a href="([^"]+)" rel="next"/)![1].replaceAll("&amp;", "&");
      const maxId = new URL(older).searchParams.get("max_id");
      assert.ok(link.includes(`max_id=${maxId}`), link);
      const rest = await session.get(new URL(older).pathname + new URL(older).search)
        .then((r) => r.text());
      assert.ok(rest.includes(`id="status-${saved[0].id}"`));
      assert.ok(rest.includes(`id="status-${saved[1].id}"`));
    });
  }

  await t.step("unbookmarked on /bookmarks with the script: the article goes", async () => {
    const res = await instance.request(`/statuses/${saved[21].id}/unbookmark`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        "rookery-fragment": "1",
      },
      body: new URLSearchParams({
        authenticity_token: session.token,
        return_to: `/bookmarks#status-${saved[21].id}`,
      }),
    });
    assert.equal(
      await res.text(),
      `<div data-remove="status-${saved[21].id}" data-announce="Removed from this page"></div>`,
    );
    assert.equal((await apiStatus(saved[21].id)).bookmarked, false);
  });

  await t.step("empty for someone who saved nothing", async () => {
    const other = await signInOverHttp(instance, "bob", "/");
    const html = await other.get("/bookmarks").then((r) => r.text());
    assert.ok(html.includes("You have not bookmarked any post yet."));
  });
});

test("who favourited and boosted a post: the API's lists", async () => {
  const liked = await postStatus(instance, bob.token, "Liked and boosted");
  await session.post(`/statuses/${liked.id}/favourite`, { return_to: "/" });
  await session.post(`/statuses/${liked.id}/reblog`, { return_to: "/" });
  for (const kind of ["favourited_by", "reblogged_by"]) {
    const res = await session.get(`/statuses/${liked.id}/${kind}`);
    assert.equal(res.status, 200);
    const html = await res.text();
    const shown = [...html.matchAll(/<span class="muted">@([^<]+)<\/span>/g)].map((m) => m[1]);
    const api = await ok(instance, ann.token, "GET", `/api/v1/statuses/${liked.id}/${kind}`);
    assert.deepEqual(shown, api.map((a: { acct: string }) => a.acct));
    assert.deepEqual(shown, ["ann"]);
  }
  const hidden = await postStatus(instance, bob.token, "Not for Ann", { visibility: "direct" });
  const res = await session.get(`/statuses/${hidden.id}/favourited_by`);
  assert.equal(res.status, 404);
  await res.body?.cancel();
});
