/**
 * The web app's lists management over HTTP (no browser): create a list
 * (a blank title refused on the form), rename it and make it exclusive,
 * find people one follows and add them, remove one, delete it after a
 * confirmation; the API sees each change; someone else's list is not found.
 */
import assert from "node:assert/strict";
import { afterAll, startInstance, test } from "../harness.ts";
import { ok } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";

const instance = await startInstance();
afterAll(() => instance.close({ destroy: true }));

const ann = await createUser(instance, "ann");
const bob = await createUser(instance, "bob");
const bea = await createUser(instance, "bea");
const cat = await createUser(instance, "cat");
await ok(instance, ann.token, "POST", `/api/v1/accounts/${bob.id}/follow`);
await ok(instance, ann.token, "POST", `/api/v1/accounts/${bea.id}/follow`);
const catsList = await ok(instance, cat.token, "POST", "/api/v1/lists", { title: "Cat's" });
const session = await signInOverHttp(instance, "ann", "/lists");

async function apiList(id: string) {
  return await ok(instance, ann.token, "GET", `/api/v1/lists/${id}`);
}

async function members(id: string): Promise<string[]> {
  const list = await ok(instance, ann.token, "GET", `/api/v1/lists/${id}/accounts`);
  return list.map((a: { id: string }) => a.id).sort();
}

test("a list from creation to deletion", async (t) => {
  let id = "";

  await t.step("a blank title is refused on the form", async () => {
    const res = await session.post("/lists", { title: "  " });
    assert.equal(res.status, 422);
    const html = await res.text();
    assert.ok(html.includes('role="alert">Validation failed: Title can&#39;t be blank'), html);
    assert.deepEqual(await ok(instance, ann.token, "GET", "/api/v1/lists"), []);
  });

  await t.step("create: to its edit page", async () => {
    const res = await session.post("/lists", {
      title: "Friends",
      replies_policy: "followed",
      exclusive: "false",
    });
    assert.equal(res.status, 303);
    const location = res.headers.get("location")!;
    id = location.match(/^\/lists\/(\d+)\/edit\?notice=saved$/)![1];
    assert.deepEqual(await apiList(id), {
      id,
      title: "Friends",
      replies_policy: "followed",
      exclusive: false,
    });
    const page = await session.get("/lists").then((r) => r.text());
    assert.ok(page.includes(`<a href="/lists/${id}">Friends</a>`));
  });

  await t.step("rename, replies policy, exclusive", async () => {
    const res = await session.post(`/lists/${id}/update`, {
      title: "Close friends",
      replies_policy: "none",
      exclusive: "true",
    });
    assert.equal(res.headers.get("location"), `/lists/${id}/edit?notice=saved`);
    const list = await apiList(id);
    assert.equal(list.title, "Close friends");
    assert.equal(list.replies_policy, "none");
    assert.equal(list.exclusive, true);
    const bad = await session.post(`/lists/${id}/update`, { replies_policy: "everyone" });
    assert.equal(bad.status, 422);
    await bad.body?.cancel();
  });

  await t.step("find people one follows and add them", async () => {
    const html = await session.get(`/lists/${id}/edit?q=b`).then((r) => r.text());
    assert.ok(html.includes('<span class="muted">@bob</span>'));
    assert.ok(html.includes('<span class="muted">@bea</span>'));
    assert.ok(!html.includes('<span class="muted">@cat</span>'), "not followed");
    for (const who of [bob, bea]) {
      const res = await session.post(`/lists/${id}/accounts`, {
        "account_ids[]": who.id,
        q: "b",
      });
      assert.equal(res.headers.get("location"), `/lists/${id}/edit?q=b&notice=saved`);
    }
    assert.deepEqual(await members(id), [bob.id, bea.id].sort());
    const page = await session.get(`/lists/${id}/edit`).then((r) => r.text());
    assert.ok(page.includes(`id="member-${bob.id}"`));
  });

  await t.step("someone not followed cannot be added", async () => {
    const res = await session.post(`/lists/${id}/accounts`, { "account_ids[]": cat.id });
    assert.equal(res.status, 404);
    await res.body?.cancel();
    assert.deepEqual(await members(id), [bob.id, bea.id].sort());
  });

  await t.step("remove one", async () => {
    const res = await session.post(`/lists/${id}/accounts/remove`, { "account_ids[]": bob.id });
    assert.equal(res.status, 303);
    assert.deepEqual(await members(id), [bea.id]);
  });

  await t.step("delete after a confirmation", async () => {
    const confirm = await session.get(`/lists/${id}/delete`).then((r) => r.text());
    assert.ok(confirm.includes(`action="/lists/${id}/delete"`));
    const res = await session.post(`/lists/${id}/delete`);
    assert.equal(res.headers.get("location"), "/lists?notice=list_deleted");
    assert.deepEqual(await ok(instance, ann.token, "GET", "/api/v1/lists"), []);
  });
});

test("someone else's list is not found, and the form token is required", async () => {
  for (const path of [`/lists/${catsList.id}/edit`, `/lists/${catsList.id}/delete`]) {
    const res = await session.get(path);
    assert.equal(res.status, 404, path);
    await res.body?.cancel();
  }
  const res = await session.post(`/lists/${catsList.id}/update`, { title: "Mine" });
  assert.equal(res.status, 404);
  await res.body?.cancel();
  const list = await ok(instance, cat.token, "GET", `/api/v1/lists/${catsList.id}`);
  assert.equal(list.title, "Cat's");
  const forged = await session.post("/lists", { title: "Sneaky", authenticity_token: "x" });
  assert.equal(forged.status, 403);
  await forged.body?.cancel();
});

test("followed hashtags: follow, listed, unfollow", async (t) => {
  const followed = async () =>
    (await ok(instance, ann.token, "GET", "/api/v1/followed_tags")).map((
      tag: { name: string },
    ) => tag.name);

  await t.step("follow: back to the tag's page", async () => {
    const res = await session.post("/tags/sailing/follow");
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/tags/sailing");
    assert.deepEqual(await followed(), ["sailing"]);
  });

  await t.step("the page lists the API's tags, each with Unfollow", async () => {
    await session.post("/tags/knitting/follow");
    const html = await session.get("/followed_tags").then((r) => r.text());
    const shown = [...html.matchAll(/<li id="tag-([^"]+)">/g)].map((m) => m[1]);
    assert.deepEqual(shown, await followed());
    assert.ok(html.includes('action="/tags/sailing/unfollow"'));
  });

  await t.step("unfollow from the page", async () => {
    const res = await session.post("/tags/sailing/unfollow", { return_to: "/followed_tags" });
    assert.equal(res.headers.get("location"), "/followed_tags");
    assert.deepEqual(await followed(), ["knitting"]);
  });

  await t.step("a name that cannot be a hashtag: an alert, not a 500", async () => {
    const res = await session.post("/tags/not%20a%20tag/follow", { return_to: "/followed_tags" });
    assert.equal(res.status, 303);
    assert.match(res.headers.get("location")!, /^\/followed_tags\?alert=/);
  });
});

test("members added and removed in place: the script gets the members part", async (t) => {
  const list = await ok(instance, ann.token, "POST", "/api/v1/lists", { title: "In place" });
  const fragment = (path: string, fields: Record<string, string>) =>
    instance.request(path, {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        "rookery-fragment": "1",
      },
      body: new URLSearchParams({ authenticity_token: session.token, ...fields }),
    });
  const opening = '<section id="list-members-section" aria-labelledby="list-members-heading"' +
    ' data-replace="list-members-section"';

  await t.step("the page's member forms are marked for the script", async () => {
    const html = await session.get(`/lists/${list.id}/edit?q=b`).then((r) => r.text());
    assert.ok(
      html.includes(`<form method="post" action="/lists/${list.id}/accounts" data-enhance`),
    );
    assert.ok(html.includes('<section id="list-members-section"'));
  });

  await t.step("add: the members part with the new member, the search kept", async () => {
    const res = await fragment(`/lists/${list.id}/accounts`, { "account_ids[]": bob.id, q: "b" });
    assert.equal(res.status, 200);
    assert.ok(res.headers.get("vary")?.includes("Rookery-Fragment"));
    const html = await res.text();
    assert.ok(html.startsWith(opening), html);
    assert.ok(html.includes('data-announce="Added to the list."'));
    assert.ok(html.includes(`<li class="account-row" id="member-${bob.id}">`));
    assert.ok(html.includes(`action="/lists/${list.id}/accounts/remove" data-enhance`));
    // bea still matches "b" and is not a member: still offered; bob no longer is.
    assert.ok(html.includes(`name="account_ids[]" value="${bea.id}"`));
    assert.ok(!html.includes("<!DOCTYPE") && !html.includes("<nav"), "no page around it");
    assert.deepEqual(await members(list.id), [bob.id]);
  });

  await t.step("remove: the members part without them", async () => {
    const res = await fragment(`/lists/${list.id}/accounts/remove`, {
      "account_ids[]": bob.id,
      q: "",
    });
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.ok(html.startsWith(opening));
    assert.ok(html.includes('data-announce="Removed from the list."'));
    assert.ok(html.includes("Nobody is on this list yet."));
    assert.deepEqual(await members(list.id), []);
  });

  await t.step(
    "a refusal is the page, as without the script (it then posts the form)",
    async () => {
      const res = await fragment(`/lists/${list.id}/accounts`, { "account_ids[]": cat.id });
      assert.equal(res.status, 404);
      assert.ok((await res.text()).startsWith("<!DOCTYPE html>"));
      assert.deepEqual(await members(list.id), []);
    },
  );

  await t.step("without the script: back to the page, the search kept", async () => {
    const res = await session.post(`/lists/${list.id}/accounts/remove`, {
      "account_ids[]": bea.id,
      q: "b",
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/lists/${list.id}/edit?q=b&notice=saved`);
  });
});
