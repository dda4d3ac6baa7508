/**
 * The web app's notifications page over HTTP (no browser): the groups are
 * the API's (same keys, same order), each a sentence naming who did what;
 * the Mentions tab; an interaction waiting for approval says so; opening the
 * page moves the notifications marker forward (never back) so the API's
 * unread count drops to zero; every app page marks "Notifications" from its
 * load while notifications are newer than the marker (GET /api/v1/markers);
 * dismissing a group and clearing everything
 * work without the script, and a dismissal answers the removal as a
 * fragment with it.
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

const ann = await createUser(instance, "ann");
const bob = await createUser(instance, "bob", { account: { displayName: "Bob Builder" } });
const cat = await createUser(instance, "cat");
const dan = await createUser(instance, "dan");
const post = await postStatus(instance, ann.token, "Ann's post to like");
await ok(instance, bob.token, "POST", `/api/v1/statuses/${post.id}/favourite`);
await ok(instance, cat.token, "POST", `/api/v1/statuses/${post.id}/favourite`);
await ok(instance, dan.token, "POST", `/api/v1/accounts/${ann.id}/follow`);
const mention = await postStatus(instance, bob.token, "@ann look at this");
// A post of Ann's whose favourites from strangers wait for her approval (issue 34).
const guarded = await postStatus(instance, ann.token, "Ask before liking");
await instance.rookery.ctx.database.db.update(statuses).set({
  interactionPolicy: {
    can_favourite: { automatic: ["author"], manual: ["public"] },
    can_reblog: { automatic: ["author"], manual: ["public"] },
  },
}).where(eq(statuses.id, guarded.id));
await ok(instance, dan.token, "POST", `/api/v1/statuses/${guarded.id}/favourite`);

const session = await signInOverHttp(instance, "ann", "/notifications");

async function apiGroups(query = ""): Promise<{ group_key: string; type: string }[]> {
  const body = await ok(instance, ann.token, "GET", `/api/v2/notifications${query}`);
  return body.notification_groups;
}

/** The group keys of a page, in order. */
function groupKeys(html: string): string[] {
  return [...html.matchAll(/<li class="notification [^"]*" id="group-([^"]+)"/g)].map((m) => m[1]);
}

async function unreadCount(): Promise<number> {
  return (await ok(instance, ann.token, "GET", "/api/v2/notifications/unread_count")).count;
}

test("the page shows the API's groups, each as a sentence", async (t) => {
  assert.ok(await unreadCount() > 0);
  const res = await session.get("/notifications");
  assert.equal(res.status, 200);
  const html = await res.text();

  await t.step("the same groups as the API, in its order", async () => {
    assert.deepEqual(groupKeys(html), (await apiGroups()).map((g) => g.group_key));
  });

  await t.step("sentences and subjects", () => {
    assert.ok(
      html.includes(
        '<a href="/@cat" class="name">cat</a> and <a href="/@bob" class="name">Bob Builder</a>' +
          " favourited your post.",
      ),
    );
    assert.ok(html.includes(`href="/@ann/${post.id}">Ann&#39;s post to like</a>`));
    assert.ok(html.includes("followed you."));
    assert.ok(html.includes("wants to favourite your post: it waits for your approval."));
    // A mention is shown whole, with its action bar.
    assert.ok(html.includes(`id="status-${mention.id}"`));
    assert.ok(html.includes(`formaction="/statuses/${mention.id}/favourite"`));
  });

  await t.step("opening it marked everything read", async () => {
    assert.equal(await unreadCount(), 0);
    const markers = await ok(
      instance,
      ann.token,
      "GET",
      "/api/v1/markers?timeline[]=notifications",
    );
    const groups = await ok(instance, ann.token, "GET", "/api/v2/notifications");
    assert.equal(
      markers.notifications.last_read_id,
      groups.notification_groups[0].most_recent_notification_id,
    );
  });

  await t.step("an older page or a tab never moves the marker back", async () => {
    const before = await ok(instance, ann.token, "GET", "/api/v1/markers?timeline[]=notifications");
    const res = await session.get("/notifications?types[]=follow");
    await res.body?.cancel();
    const after = await ok(instance, ann.token, "GET", "/api/v1/markers?timeline[]=notifications");
    assert.equal(after.notifications.last_read_id, before.notifications.last_read_id);
  });
});

test("interactions waiting for approval: accepted, rejected", async (t) => {
  await ok(instance, bob.token, "POST", `/api/v1/statuses/${guarded.id}/reblog`);
  const pending = await ok(instance, ann.token, "GET", "/api/v1/interaction_requests");
  const fave = pending.find((r: { type: string }) => r.type === "favourite");
  const boost = pending.find((r: { type: string }) => r.type === "reblog");

  await t.step("listed on the page, each with Accept and Reject", async () => {
    const html = await session.get("/notifications").then((r) => r.text());
    assert.ok(html.includes("Waiting for your approval"));
    assert.ok(html.includes(`id="approval-${fave.id}"`));
    assert.ok(html.includes(`formaction="/interaction_requests/${boost.id}/reject"`));
    assert.ok(html.includes("wants to favourite"));
  });

  await t.step("accept without the script: the favourite counts", async () => {
    const res = await session.post(`/interaction_requests/${fave.id}/authorize`, {
      return_to: "/notifications",
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/notifications");
    const status = await ok(instance, ann.token, "GET", `/api/v1/statuses/${guarded.id}`);
    assert.equal(status.favourites_count, 1);
  });

  await t.step("reject with the script: the row goes", async () => {
    const res = await instance.request(`/interaction_requests/${boost.id}/reject`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        "rookery-fragment": "1",
      },
      body: new URLSearchParams({ authenticity_token: session.token }),
    });
    assert.equal(
      await res.text(),
      `<div data-remove="approval-${boost.id}" data-announce="Rejected"></div>`,
    );
    assert.deepEqual(await ok(instance, ann.token, "GET", "/api/v1/interaction_requests"), []);
  });

  await t.step("a decided request: an alert, not a 500", async () => {
    const res = await session.post(`/interaction_requests/${boost.id}/authorize`, {
      return_to: "/notifications",
    });
    assert.equal(res.headers.get("location"), "/notifications?alert=not_found");
    const html = await session.get("/notifications").then((r) => r.text());
    assert.ok(!html.includes("Waiting for your approval"));
  });
});

test("the Mentions tab shows mentions only", async () => {
  const html = await session.get("/notifications?types[]=mention").then((r) => r.text());
  const keys = groupKeys(html);
  assert.deepEqual(keys, (await apiGroups("?types[]=mention")).map((g) => g.group_key));
  assert.equal(keys.length, 1);
  assert.match(html, /<a href="\/notifications\?types\[\]=mention" aria-current="page">/);
});

test("dismiss one group, then clear them all", async (t) => {
  const follow = (await apiGroups()).find((g) => g.type === "follow")!;

  await t.step("dismiss with the script: the removal", async () => {
    const res = await instance.request(`/notifications/${follow.group_key}/dismiss`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        "rookery-fragment": "1",
      },
      body: new URLSearchParams({ authenticity_token: session.token }),
    });
    assert.equal(res.status, 200);
    assert.equal(
      await res.text(),
      `<div data-remove="group-${follow.group_key}" data-announce="Notification dismissed"></div>`,
    );
    assert.ok(!(await apiGroups()).some((g) => g.group_key === follow.group_key));
  });

  await t.step("dismiss without it: back to the page", async () => {
    const [first] = await apiGroups();
    const res = await session.post(`/notifications/${first.group_key}/dismiss`, {
      return_to: "/notifications",
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/notifications");
    assert.ok(!(await apiGroups()).some((g) => g.group_key === first.group_key));
  });

  await t.step("a malformed key dismisses nothing and fails nothing", async () => {
    const before = (await apiGroups()).length;
    const res = await session.post("/notifications/%00bad%20key/dismiss");
    assert.equal(res.status, 303);
    assert.equal((await apiGroups()).length, before);
  });

  await t.step("clear: a confirmation, then nothing left", async () => {
    const confirm = await session.get("/notifications/clear");
    const page = await confirm.text();
    assert.ok(page.includes('action="/notifications/clear"'));
    const res = await session.post("/notifications/clear");
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/notifications?notice=cleared");
    assert.deepEqual(await apiGroups(), []);
    const empty = await session.get("/notifications?notice=cleared").then((r) => r.text());
    assert.ok(empty.includes("No notifications yet."));
    assert.ok(empty.includes("Your notifications were cleared."));
  });

  await t.step("without the form token nothing is cleared", async () => {
    await postStatus(instance, cat.token, "@ann again");
    const res = await session.post("/notifications/clear", { authenticity_token: "nope" });
    assert.equal(res.status, 403);
    await res.body?.cancel();
    assert.equal((await apiGroups()).length, 1);
  });

  await t.step("a visitor is sent to sign in", async () => {
    const res = await instance.request("/notifications", { redirect: "manual" });
    assert.equal(res.status, 303);
    assert.match(res.headers.get("location")!, /^\/auth\/sign_in\?redirect_to=/);
  });
});

test("conversations: listed as the API lists them, read, unread, deleted", async (t) => {
  // A private mention from someone not followed is filtered by the default policy.
  await ok(instance, ann.token, "POST", `/api/v1/accounts/${bob.id}/follow`);
  await postStatus(instance, bob.token, "@ann a private word", { visibility: "direct" });
  const [conversation] = await ok(instance, ann.token, "GET", "/api/v1/conversations");
  const id = conversation.id;
  const html = await session.get("/conversations").then((r) => r.text());

  await t.step("the page shows it, unread", () => {
    assert.ok(html.includes(`id="conversation-${id}"`));
    assert.ok(html.includes("a private word"));
    assert.ok(html.includes(`formaction="/conversations/${id}/read"`));
    assert.equal(conversation.unread, true);
  });

  await t.step("mark as read, then unread with the script", async () => {
    const res = await session.post(`/conversations/${id}/read`, { return_to: "/conversations" });
    assert.equal(res.headers.get("location"), "/conversations");
    const [read] = await ok(instance, ann.token, "GET", "/api/v1/conversations");
    assert.equal(read.unread, false);
    const fragment = await instance.request(`/conversations/${id}/unread`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        "rookery-fragment": "1",
      },
      body: new URLSearchParams({ authenticity_token: session.token }),
    });
    const row = await fragment.text();
    assert.match(
      row,
      new RegExp(`^<li class="conversation" id="conversation-${id}" data-replace=`),
    );
    assert.ok(row.includes(`formaction="/conversations/${id}/read"`));
  });

  await t.step("someone else's, or a missing one: an alert", async () => {
    const res = await session.post("/conversations/123456789/read", {
      return_to: "/conversations",
    });
    assert.equal(res.headers.get("location"), "/conversations?alert=not_found");
  });

  await t.step("delete", async () => {
    const res = await session.post(`/conversations/${id}/delete`, { return_to: "/conversations" });
    assert.equal(res.status, 303);
    assert.deepEqual(await ok(instance, ann.token, "GET", "/api/v1/conversations"), []);
    const empty = await session.get("/conversations").then((r) => r.text());
    assert.ok(empty.includes("No private conversations yet."));
  });
});

test("every page marks unread notifications from its load; opening them clears it", async (t) => {
  const MARK = /<a href="\/notifications"\s+class="unread" aria-label="Notifications, new">/;
  const marked = async (path: string) => MARK.test(await session.get(path).then((r) => r.text()));
  const marker = async () =>
    (await ok(instance, ann.token, "GET", "/api/v1/markers?timeline[]=notifications"))
      .notifications.last_read_id;
  const opened = await session.get("/notifications");
  await opened.body?.cancel();

  await t.step("nothing newer than the marker: no mark", async () => {
    assert.equal(await unreadCount(), 0);
    assert.equal(await marked("/"), false);
    assert.equal(await marked("/lists"), false);
  });

  const like = await postStatus(instance, ann.token, "Ann's post for the mark");
  await ok(instance, cat.token, "POST", `/api/v1/statuses/${like.id}/favourite`);

  await t.step("a new notification: marked on any page, as the API counts it", async () => {
    assert.equal(await unreadCount(), 1);
    assert.equal(await marked("/"), true);
    assert.equal(await marked("/lists"), true);
    assert.equal(await marked(`/@ann/${like.id}`), true);
  });

  await t.step("another client moving the marker clears it", async () => {
    const [newest] = await ok(instance, ann.token, "GET", "/api/v1/notifications?limit=1");
    await ok(instance, ann.token, "POST", "/api/v1/markers", {
      notifications: { last_read_id: newest.id },
    });
    assert.equal(await marked("/"), false);
  });

  await ok(instance, dan.token, "POST", `/api/v1/statuses/${like.id}/favourite`);

  await t.step(
    "opening the notifications page moves the marker; that page is unmarked",
    async () => {
      assert.equal(await marked("/"), true);
      assert.equal(await marked("/notifications"), false);
      const [newest] = await ok(instance, ann.token, "GET", "/api/v1/notifications?limit=1");
      assert.equal(await marker(), newest.id);
      assert.equal(await marked("/"), false);
    },
  );
});
