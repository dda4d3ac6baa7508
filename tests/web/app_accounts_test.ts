/**
 * The web app's profiles over HTTP (no browser): a signed-in `/@acct` is
 * the app's profile (header, relationship bar, the posts the viewer may
 * see, the API's), a visitor's and an ActivityPub request's stay the public
 * page and the actor; follow, unfollow, a locked account's request, mute
 * with a duration, block, each without the script (303 back with a notice,
 * the API agreeing) and with it (the bar as a fragment); an unknown handle
 * is a 404 that offers search; refusals never a 500.
 */
import assert from "node:assert/strict";
import { afterAll, startInstance, test } from "../harness.ts";
import { ok, postStatus, relationship } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));

const ann = await createUser(instance, "ann");
const bob = await createUser(instance, "bob", { account: { displayName: "Bob Builder" } });
const lou = await createUser(instance, "lou", { account: { locked: true } });
const shown = await postStatus(instance, bob.token, "Bob's public post");
const secret = await postStatus(instance, bob.token, "Bob's followers-only post", {
  visibility: "private",
});
const annPost = await postStatus(instance, ann.token, "Ann asks");
// A reply to someone else: left out of the Posts tab, as Mastodon's.
const reply = await postStatus(instance, bob.token, "@ann A reply", { in_reply_to_id: annPost.id });
const session = await signInOverHttp(instance, "ann", "/");

/** The data-id of each article of a page, in order. */
function articleIds(html: string): string[] {
  return [...html.matchAll(/<article class="status[^"]*" id="status-\d+" data-id="(\d+)"/g)]
    .map((m) => m[1]);
}

test("a signed-in /@acct is the app's profile; others keep the public page", async (t) => {
  await t.step("signed in: header, bar, the posts the viewer may see", async () => {
    const res = await session.get("/@bob");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "private, no-store");
    const html = await res.text();
    assert.ok(html.includes("<h1>Bob Builder</h1>"));
    assert.ok(html.includes(`id="account-${bob.id}"`));
    assert.ok(html.includes(`formaction="/accounts/${bob.id}/follow">Follow</button>`));
    assert.ok(html.includes(`href="/accounts/${bob.id}/block?return_to=%2F%40bob"`));
    assert.deepEqual(articleIds(html), [shown.id], "no reply, no followers-only post yet");
    const api = await ok(
      instance,
      ann.token,
      "GET",
      `/api/v1/accounts/${bob.id}/statuses?exclude_replies=true`,
    );
    assert.deepEqual(articleIds(html), api.map((s: { id: string }) => s.id));
    assert.ok(!html.includes(reply.id));
  });

  await t.step("one's own profile: no bar, a link to edit it", async () => {
    const html = await session.get("/@ann").then((r) => r.text());
    assert.ok(!html.includes(`id="account-${ann.id}"`));
    assert.ok(html.includes('href="/settings/profile">Edit profile</a>'));
  });

  await t.step("a visitor gets the public profile", async () => {
    const res = await instance.request("/@bob");
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.ok(!html.includes(`id="account-${bob.id}"`));
    assert.ok(!res.headers.get("content-security-policy")!.includes("script-src"));
  });

  await t.step("ActivityPub with a session cookie still gets the actor", async () => {
    const res = await instance.request("/@bob", {
      headers: { cookie: session.cookie, accept: "application/activity+json" },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /activity\+json/);
    assert.equal((await res.json()).preferredUsername, "bob");
  });

  await t.step("an unknown handle: 404 with a search link", async () => {
    const res = await session.get("/@nobody@far.example");
    assert.equal(res.status, 404);
    const html = await res.text();
    assert.ok(html.includes('href="/search?q=%40nobody%40far.example"'));
  });
});

test("follow and unfollow, without and with the script", async (t) => {
  await t.step("follow: back to the profile, the followers-only post now shown", async () => {
    const res = await session.post(`/accounts/${bob.id}/follow`, { return_to: "/@bob" });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/@bob");
    assert.equal((await relationship(instance, ann, bob.id)).following, true);
    const html = await session.get("/@bob").then((r) => r.text());
    assert.ok(html.includes(`formaction="/accounts/${bob.id}/unfollow">Unfollow</button>`));
    assert.deepEqual(articleIds(html), [secret.id, shown.id]);
  });

  await t.step("unfollow with the script: the bar replaced", async () => {
    const res = await instance.request(`/accounts/${bob.id}/unfollow`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        "rookery-fragment": "1",
      },
      body: new URLSearchParams({ authenticity_token: session.token, return_to: "/@bob" }),
    });
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, new RegExp(`^<form [^>]*id="account-${bob.id}" data-replace="account-`));
    assert.ok(html.includes(">Follow</button>"));
    assert.equal((await relationship(instance, ann, bob.id)).following, false);
  });

  await t.step("a locked account: a request, then cancelled", async () => {
    const page = await session.get("/@lou").then((r) => r.text());
    assert.ok(page.includes(">Ask to follow</button>"));
    await session.post(`/accounts/${lou.id}/follow`, { return_to: "/@lou" });
    assert.equal((await relationship(instance, ann, lou.id)).requested, true);
    const after = await session.get("/@lou").then((r) => r.text());
    assert.ok(after.includes(">Cancel follow request</button>"));
    await session.post(`/accounts/${lou.id}/unfollow`, { return_to: "/@lou" });
    assert.equal((await relationship(instance, ann, lou.id)).requested, false);
  });

  await t.step("refusals: oneself, a bad language, an unknown account, no token", async () => {
    const self = await session.post(`/accounts/${ann.id}/follow`, { return_to: "/@ann" });
    assert.equal(self.headers.get("location"), "/@ann?alert=not_allowed");
    const bad = await session.post(`/accounts/${bob.id}/follow`, {
      return_to: "/@bob",
      "languages[]": "not a language",
    });
    assert.equal(bad.headers.get("location"), "/@bob?alert=invalid");
    const missing = await session.post("/accounts/123456789/follow");
    assert.equal(missing.headers.get("location"), "/?alert=not_found");
    const forged = await session.post(`/accounts/${bob.id}/follow`, {
      authenticity_token: "forged",
    });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    assert.equal((await relationship(instance, ann, bob.id)).following, false);
  });
});

test("mute and block through their confirmations", async (t) => {
  await t.step("mute for an hour, notifications too", async () => {
    const confirm = await session.get(`/accounts/${bob.id}/mute?return_to=/@bob`);
    const page = await confirm.text();
    assert.equal(confirm.status, 200);
    assert.ok(page.includes(`action="/accounts/${bob.id}/mute"`));
    assert.ok(page.includes('<option value="3600">1 hour</option>'));
    const res = await session.post(`/accounts/${bob.id}/mute`, {
      return_to: "/@bob",
      duration: "3600",
      notifications: "true",
    });
    assert.equal(res.headers.get("location"), "/@bob?notice=muted");
    const rel = await relationship(instance, ann, bob.id);
    assert.equal(rel.muting, true);
    assert.equal(rel.muting_notifications, true);
    assert.ok(rel.muting_expires_at);
    const html = await session.get("/@bob?notice=muted").then((r) => r.text());
    assert.ok(html.includes(`formaction="/accounts/${bob.id}/unmute">Unmute</button>`));
    assert.ok(html.includes("Muted."));
    await session.post(`/accounts/${bob.id}/unmute`, { return_to: "/@bob" });
    assert.equal((await relationship(instance, ann, bob.id)).muting, false);
  });

  await t.step("an overlong mute is refused", async () => {
    const res = await session.post(`/accounts/${bob.id}/mute`, {
      return_to: "/@bob",
      duration: "99999999999999",
    });
    assert.equal(res.status, 303);
    assert.match(res.headers.get("location")!, /alert=/);
    assert.equal((await relationship(instance, ann, bob.id)).muting, false);
  });

  await t.step("block, then unblock", async () => {
    const confirm = await session.get(`/accounts/${bob.id}/block`);
    assert.ok((await confirm.text()).includes(`action="/accounts/${bob.id}/block"`));
    const res = await session.post(`/accounts/${bob.id}/block`, { return_to: "/@bob" });
    assert.equal(res.headers.get("location"), "/@bob?notice=blocked");
    assert.equal((await relationship(instance, ann, bob.id)).blocking, true);
    const html = await session.get("/@bob").then((r) => r.text());
    assert.ok(html.includes(`formaction="/accounts/${bob.id}/unblock">Unblock</button>`));
    assert.ok(!html.includes(">Follow</button>"), "no Follow while blocking");
    await session.post(`/accounts/${bob.id}/unblock`, { return_to: "/@bob" });
    assert.equal((await relationship(instance, ann, bob.id)).blocking, false);
  });

  await t.step("an unknown account's confirmation is a 404 page", async () => {
    const res = await session.get("/accounts/123456789/block");
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });
});

test("follow requests: accepted, rejected, and a stale one", async (t) => {
  const louSession = await signInOverHttp(instance, "lou", "/follow_requests");
  const kim = await createUser(instance, "kim");
  const max = await createUser(instance, "max");
  await ok(instance, kim.token, "POST", `/api/v1/accounts/${lou.id}/follow`);
  await ok(instance, max.token, "POST", `/api/v1/accounts/${lou.id}/follow`);

  await t.step("the page lists the API's requests", async () => {
    const html = await louSession.get("/follow_requests").then((r) => r.text());
    const rows = [...html.matchAll(/id="request-(\d+)"/g)].map((m) => m[1]);
    const api = await ok(instance, lou.token, "GET", "/api/v1/follow_requests");
    assert.deepEqual(rows, api.map((a: { id: string }) => a.id));
    assert.deepEqual(rows, [max.id, kim.id]);
    assert.ok(html.includes(`formaction="/follow_requests/${kim.id}/authorize"`));
  });

  await t.step("accept without the script", async () => {
    const res = await louSession.post(`/follow_requests/${kim.id}/authorize`, {
      return_to: "/follow_requests",
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/follow_requests");
    assert.equal((await relationship(instance, kim, lou.id)).following, true);
  });

  await t.step("reject with the script: the row goes", async () => {
    const res = await instance.request(`/follow_requests/${max.id}/reject`, {
      method: "POST",
      headers: {
        cookie: louSession.cookie,
        "content-type": "application/x-www-form-urlencoded",
        "rookery-fragment": "1",
      },
      body: new URLSearchParams({ authenticity_token: louSession.token }),
    });
    assert.equal(res.status, 200);
    assert.equal(
      await res.text(),
      `<div data-remove="request-${max.id}" data-announce="Follow request rejected"></div>`,
    );
    assert.equal((await relationship(instance, max, lou.id)).requested, false);
    const html = await louSession.get("/follow_requests").then((r) => r.text());
    assert.ok(html.includes("Nobody is waiting for your approval"));
  });

  await t.step("a request no longer there: an alert, not a 500", async () => {
    const res = await louSession.post(`/follow_requests/${max.id}/authorize`, {
      return_to: "/follow_requests",
    });
    assert.equal(res.headers.get("location"), "/follow_requests?alert=not_found");
    assert.equal((await relationship(instance, max, lou.id)).following, false);
  });
});

test("followers and following pages: the API's lists", async () => {
  const zed = await createUser(instance, "zed");
  await ok(instance, zed.token, "POST", `/api/v1/accounts/${bob.id}/follow`);
  await ok(instance, bob.token, "POST", `/api/v1/accounts/${zed.id}/follow`);
  const profile = await session.get("/@bob").then((r) => r.text());
  assert.ok(profile.includes('href="/@bob/followers"'));
  for (const kind of ["followers", "following"]) {
    const res = await session.get(`/@bob/${kind}`);
    assert.equal(res.status, 200);
    const html = await res.text();
    const shown = [...html.matchAll(/<span class="muted">@([^<]+)<\/span>/g)].map((m) => m[1]);
    const api = await ok(instance, ann.token, "GET", `/api/v1/accounts/${bob.id}/${kind}`);
    assert.deepEqual(shown, api.map((a: { acct: string }) => a.acct), kind);
    assert.ok(shown.includes("zed"));
  }
  const unknown = await session.get("/@nobody/followers");
  assert.equal(unknown.status, 404);
  await unknown.body?.cancel();
  const visitor = await instance.request("/@bob/followers", { redirect: "manual" });
  assert.equal(visitor.status, 303);
  await visitor.body?.cancel();
});
