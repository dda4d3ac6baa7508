/**
 * The web app's thread page, over HTTP (no browser): a signed-in
 * /@acct/:id shows the API's context (same ancestors and descendants, in
 * order, with depths), a held reply only to its author and the post's
 * author (with the note the Status entity carries), a reply composer with
 * the mentions prefilled; a wrong handle redirects to the author's; a post
 * the viewer may not see is a 404 page; visitors still get the public page
 * and ActivityPub clients the Note, cookie or not.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { statuses } from "../../db/schema/mod.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;

const alice = await createUser(instance, "alice");
const bob = await createUser(instance, "bob");
const carol = await createUser(instance, "carol");
const root = await postStatus(instance, alice, "Which wool for socks?");
const middle = await postStatus(instance, bob, "@alice Merino, surely", {
  in_reply_to_id: root.id,
});
const deep = await postStatus(instance, alice, "@bob Why merino?", { in_reply_to_id: middle.id });
const held = await postStatus(instance, carol, "@bob Acrylic!", { in_reply_to_id: middle.id });
await db.update(statuses).set({ pendingApproval: true }).where(eq(statuses.id, held.id));
const secret = await postStatus(instance, carol, "Only for my followers", {
  visibility: "private",
});

const sessions = {
  alice: await signInOverHttp(instance, "alice", "/"),
  bob: await signInOverHttp(instance, "bob", "/"),
  carol: await signInOverHttp(instance, "carol", "/"),
};

function articleIds(html: string): string[] {
  return [...html.matchAll(/<article class="status[^"]*" id="status-\d+" data-id="(\d+)"/g)]
    .map((m) => m[1]);
}

async function apiContext(who: { token: string }, id: string) {
  const context = await ok(instance, who, "GET", `/api/v1/statuses/${id}/context`);
  const ids = (list: { id: string }[]) => list.map((s) => s.id);
  return { ancestors: ids(context.ancestors), descendants: ids(context.descendants) };
}

test("the signed-in thread page", async (t) => {
  await t.step("the API's context around the focused post, with depths", async () => {
    const res = await sessions.alice.get(`/@bob/${middle.id}`);
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "private, no-store");
    assert.ok(res.headers.get("content-security-policy")!.includes("script-src"));
    const api = await apiContext(alice, middle.id);
    assert.deepEqual(articleIds(html), [...api.ancestors, middle.id, ...api.descendants]);
    assert.match(html, new RegExp(`<article class="status focus" id="status-${middle.id}"`));
    assert.match(
      html,
      new RegExp(`<div class="depth-1"><article class="status" id="status-${deep.id}"`),
    );
    assert.ok(html.includes("<h1>Post by @bob</h1>"));
    // The focused post links who boosted and favourited it.
    assert.ok(html.includes(`<a href="/statuses/${middle.id}/favourited_by">0 favourites</a>`));
  });

  await t.step("the reply composer: in reply to the post, mentions prefilled", async () => {
    const html = await sessions.alice.get(`/@bob/${middle.id}`).then((r) => r.text());
    assert.ok(html.includes(`name="in_reply_to_id" value="${middle.id}"`));
    assert.match(html, /<textarea id="status" name="status"[^>]*>@bob <\/textarea>/);
  });

  await t.step("a held reply: only its author and the replied-to author see it", async () => {
    const asAlice = await sessions.alice.get(`/@bob/${middle.id}`).then((r) => r.text());
    assert.ok(!articleIds(asAlice).includes(held.id));
    const asBob = await sessions.bob.get(`/@bob/${middle.id}`).then((r) => r.text());
    assert.ok(articleIds(asBob).includes(held.id));
    assert.ok(asBob.includes("This reply is waiting for your approval."));
    const asCarol = await sessions.carol.get(`/@bob/${middle.id}`).then((r) => r.text());
    assert.ok(articleIds(asCarol).includes(held.id));
    assert.ok(asCarol.includes("Waiting for @bob to approve this reply"));
    assert.deepEqual(
      articleIds(asCarol).slice(2),
      (await apiContext(carol, middle.id)).descendants,
    );
  });

  await t.step("posting the reply lands back on the thread", async () => {
    const res = await sessions.alice.post("/statuses", {
      status: "@bob Because it is soft",
      in_reply_to_id: middle.id,
      return_to: `/@bob/${middle.id}`,
    });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/@bob/${middle.id}?notice=posted`);
    const html = await sessions.alice.get(`/@bob/${middle.id}`).then((r) => r.text());
    assert.ok(html.includes("Because it is soft"));
    assert.deepEqual(articleIds(html).slice(2), (await apiContext(alice, middle.id)).descendants);
  });

  await t.step("the script's poll: the replies section and the refresh line alone", async () => {
    const res = await instance.request(`/@bob/${middle.id}`, {
      headers: { cookie: sessions.alice.cookie, "rookery-fragment": "1" },
    });
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.match(res.headers.get("vary") ?? "", /Rookery-Fragment/);
    assert.match(
      html,
      /^<section aria-labelledby="replies" id="replies-section" data-replace="replies-section">/,
    );
    assert.deepEqual(articleIds(html), (await apiContext(alice, middle.id)).descendants);
    // A local thread has no crawl under way: the line goes.
    assert.ok(html.endsWith('<p data-remove="refresh"></p>'));
  });

  await t.step("a wrong handle redirects to the author's path", async () => {
    const res = await sessions.alice.get(`/@alice/${middle.id}`);
    await res.body?.cancel();
    assert.equal(res.status, 301);
    assert.equal(res.headers.get("location"), `/@bob/${middle.id}`);
  });

  await t.step("a post the viewer may not see, or no post: 404 page", async () => {
    for (const path of [`/@carol/${secret.id}`, "/@carol/999999999"]) {
      const res = await sessions.alice.get(path);
      const html = await res.text();
      assert.equal(res.status, 404, path);
      assert.ok(html.includes("<h1>Not found</h1>"));
    }
  });

  await t.step(
    "visitors get the public page; ActivityPub the Note, with a cookie too",
    async () => {
      const visitor = await instance.request(`/@bob/${middle.id}`);
      const page = await visitor.text();
      assert.equal(visitor.status, 200);
      assert.ok(!page.includes('id="composer"'));
      assert.ok(!visitor.headers.get("content-security-policy")!.includes("script-src"));
      const note = await instance.request(`/@bob/${middle.id}`, {
        headers: { accept: "application/activity+json", cookie: sessions.alice.cookie },
      });
      assert.equal(note.status, 200);
      assert.match(note.headers.get("content-type") ?? "", /activity\+json/);
      assert.equal((await note.json()).type, "Note");
    },
  );
});
