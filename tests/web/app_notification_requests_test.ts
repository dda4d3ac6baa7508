/**
 * Filtered notifications and the notification policy in the web app, over
 * HTTP (no browser): strangers' private mentions are held back (the default
 * policy); /notifications links to them with the API's summary; the
 * requests page lists what GET /api/v1/notifications/requests does; a
 * request's page shows that sender's filtered notifications; accept (one),
 * dismiss (ticked together) and the Dismissed tab agree with the API;
 * someone else's request is refused (404 page, alert, skipped in bulk); the
 * policy page shows and saves the v2 policy's five conditions, and a
 * refused value changes nothing (422).
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
const cat = await createUser(instance, "cat");
const dan = await createUser(instance, "dan");
const eve = await createUser(instance, "eve");
await postStatus(instance, bob.token, "@ann psst from Bob", { visibility: "direct" });
await postStatus(instance, cat.token, "@ann hello from Cat", { visibility: "direct" });
await postStatus(instance, dan.token, "@ann one from Dan", { visibility: "direct" });
await postStatus(instance, dan.token, "@ann two from Dan", { visibility: "direct" });
await postStatus(instance, bob.token, "@eve psst to Eve", { visibility: "direct" });
const session = await signInOverHttp(instance, "ann", "/");

type Request = { id: string; account: { id: string } };
async function apiRequests(who: { token: string }, query = ""): Promise<Request[]> {
  return await ok(instance, who.token, "GET", `/api/v1/notifications/requests${query}`);
}

/** Posts form fields (repeated names allowed) as Ann's session. */
async function send(path: string, fields: [string, string][] = []): Promise<Response> {
  return await instance.request(path, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([["authenticity_token", session.token], ...fields]),
  });
}

function rowIds(html: string): string[] {
  return [...html.matchAll(/id="notification-request-(\d+)"/g)].map((m) => m[1]);
}

test("filtered notifications: list, one sender's, accept, dismiss", async (t) => {
  const requests = await apiRequests(ann);
  const byAccount = new Map(requests.map((r) => [r.account.id, r.id]));
  const [eveRequest] = await apiRequests(eve);

  await t.step("/notifications links to them with the API's summary", async () => {
    const html = await session.get("/notifications").then((r) => r.text());
    assert.ok(html.includes('href="/notifications/requests"'));
    assert.ok(html.includes("Filtered notifications: 4 from 3 people"));
    assert.ok(!html.includes("psst from Bob"), "held back from the groups");
    assert.ok(html.includes('href="/notifications/policy"'));
  });

  await t.step("the list is the API's, with boxes and buttons", async () => {
    const res = await session.get("/notifications/requests");
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.deepEqual(rowIds(html), requests.map((r) => r.id));
    assert.equal(rowIds(html).length, 3);
    const dans = byAccount.get(dan.id)!;
    assert.ok(html.includes(`name="id[]" value="${dans}"`));
    assert.ok(html.includes(`href="/notifications/requests/${dans}">2 notifications</a>`));
    assert.ok(html.includes(`formaction="/notifications/requests/${dans}/accept"`));
    assert.ok(html.includes('formaction="/notifications/requests/dismiss"'));
  });

  await t.step("one sender's page shows their filtered notifications", async () => {
    const html = await session.get(`/notifications/requests/${byAccount.get(dan.id)}`)
      .then((r) => r.text());
    assert.ok(html.includes("one from Dan") && html.includes("two from Dan"));
    assert.ok(!html.includes("psst from Bob"));
    for (const path of [`/notifications/requests/${eveRequest.id}`, "/notifications/requests/1"]) {
      const res = await session.get(path);
      assert.equal(res.status, 404, path);
      await res.body?.cancel();
    }
  });

  await t.step("accept one: its notifications join the others", async () => {
    const res = await send(`/notifications/requests/${byAccount.get(bob.id)}/accept`, [
      ["return_to", "/notifications/requests"],
    ]);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/notifications/requests");
    assert.ok(!(await apiRequests(ann)).some((r) => r.account.id === bob.id));
    const notes = await ok(instance, ann.token, "GET", "/api/v1/notifications");
    assert.ok(notes.some((n: { account: { id: string } }) => n.account.id === bob.id));
    const html = await session.get("/notifications").then((r) => r.text());
    assert.ok(html.includes("psst from Bob"));
  });

  await t.step("dismiss the ticked ones; someone else's id is skipped", async () => {
    const res = await send("/notifications/requests/dismiss", [
      ["id[]", byAccount.get(cat.id)!],
      ["id[]", byAccount.get(dan.id)!],
      ["id[]", eveRequest.id],
      ["id[]", "garbage"],
    ]);
    assert.equal(res.status, 303);
    assert.deepEqual(await apiRequests(ann), []);
    const dismissed = await apiRequests(ann, "?dismissed=true");
    assert.deepEqual(dismissed.map((r) => r.account.id).sort(), [cat.id, dan.id].sort());
    assert.deepEqual((await apiRequests(eve)).map((r) => r.id), [eveRequest.id]);
    const tab = await session.get("/notifications/requests?dismissed=true").then((r) => r.text());
    assert.deepEqual(rowIds(tab), dismissed.map((r) => r.id));
    const pending = await session.get("/notifications/requests").then((r) => r.text());
    assert.ok(pending.includes("Nothing filtered."));
  });

  await t.step("someone else's request, one by one: an alert, nothing changed", async () => {
    const res = await send(`/notifications/requests/${eveRequest.id}/accept`);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/notifications/requests?alert=not_found");
    assert.deepEqual((await apiRequests(eve)).map((r) => r.id), [eveRequest.id]);
  });
});

test("the notification policy page", async (t) => {
  await t.step("shows the five conditions with their values", async () => {
    const html = await session.get("/notifications/policy").then((r) => r.text());
    for (
      const param of [
        "for_not_following",
        "for_not_followers",
        "for_new_accounts",
        "for_private_mentions",
        "for_limited_accounts",
      ]
    ) {
      assert.ok(html.includes(`name="${param}"`), param);
    }
    assert.match(
      html,
      /name="for_private_mentions"[^>]*><option value="accept" >Accept<\/option><option value="filter" selected>/,
    );
    assert.ok(html.includes('<option value="drop" >Ignore</option>'));
  });

  await t.step("saves as the API's PATCH does", async () => {
    const res = await send("/notifications/policy", [
      ["for_not_following", "drop"],
      ["for_new_accounts", "filter"],
      ["for_private_mentions", "accept"],
    ]);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/notifications/policy?notice=saved");
    const policy = await ok(instance, ann.token, "GET", "/api/v2/notifications/policy");
    assert.equal(policy.for_not_following, "drop");
    assert.equal(policy.for_new_accounts, "filter");
    assert.equal(policy.for_private_mentions, "accept");
    assert.equal(policy.for_not_followers, "accept");
  });

  await t.step("a refused value: 422 with the message, nothing changed", async () => {
    const res = await send("/notifications/policy", [
      ["for_not_following", "accept"],
      ["for_not_followers", "bogus"],
    ]);
    assert.equal(res.status, 422);
    assert.ok((await res.text()).includes("is not included in the list"));
    const policy = await ok(instance, ann.token, "GET", "/api/v2/notifications/policy");
    assert.equal(policy.for_not_following, "drop");
  });

  await t.step("a visitor is sent to sign in; a post without the token is refused", async () => {
    const visitor = await instance.request("/notifications/policy", { redirect: "manual" });
    assert.equal(visitor.status, 303);
    await visitor.body?.cancel();
    const forged = await instance.request("/notifications/policy", {
      method: "POST",
      redirect: "manual",
      headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ for_not_following: "accept" }),
    });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
  });
});
