/**
 * Hashtags: detail with a 7-day history, follow/unfollow, followed_tags
 * paging, feature/unfeature, featured tags CRUD, limit and suggestions, and
 * the featuredTags ActivityPub collection.
 */
import assert from "node:assert/strict";
import { json, startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { insertStatus } from "./helpers.ts";

const DAY = 86_400_000;

function startOfDay(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 1000;
}

test("tag detail: history, 404s, name rules, viewer flags", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const now = Date.now();
    await insertStatus(instance, alice.id, { tags: ["Cats"] });
    await insertStatus(instance, alice.id, { tags: ["cats"] });
    await insertStatus(instance, bob.id, { tags: ["cats", "dogs"] });
    await insertStatus(instance, bob.id, { tags: ["cats"], createdAt: new Date(now - 2 * DAY) });
    // Not counted: private, deleted, older than 7 days.
    await insertStatus(instance, bob.id, { tags: ["cats"], visibility: "private" });
    await insertStatus(instance, bob.id, { tags: ["cats"], deleted: true });
    await insertStatus(instance, bob.id, { tags: ["cats"], createdAt: new Date(now - 9 * DAY) });

    const anon = await callJson(instance, null, "GET", "/api/v1/tags/CATS");
    assert.equal(anon.status, 200);
    assert.equal(anon.body.name, "Cats");
    assert.equal(anon.body.url, `${instance.origin}/tags/Cats`);
    assert.match(anon.body.id, /^\d+$/);
    assert.equal(anon.body.following, undefined);
    assert.equal(anon.body.history.length, 7);
    assert.deepEqual(anon.body.history[0], {
      day: String(startOfDay(now)),
      uses: "3",
      accounts: "2",
    });
    assert.deepEqual(anon.body.history[2], {
      day: String(startOfDay(now - 2 * DAY)),
      uses: "1",
      accounts: "1",
    });
    assert.equal(anon.body.history[1].uses, "0");
    assert.equal(anon.body.history[6].day, String(startOfDay(now - 6 * DAY)));

    const mine = await callJson(instance, alice, "GET", "/api/v1/tags/cats");
    assert.equal(mine.body.following, false);
    assert.equal(mine.body.featured, false);
    assert.equal(mine.body.featuring, false);

    for (const bad of ["nosuchtag", "123", "a-b", "%20", "x".repeat(51)]) {
      const res = await callJson(instance, alice, "GET", `/api/v1/tags/${bad}`);
      assert.equal(res.status, 404, bad);
      assert.deepEqual(res.body, { error: "Record not found" });
    }
    // Unicode letters are hashtag letters.
    await insertStatus(instance, alice.id, { tags: ["日本語"] });
    const unicode = await callJson(
      instance,
      null,
      "GET",
      `/api/v1/tags/${encodeURIComponent("日本語")}`,
    );
    assert.equal(unicode.status, 200);
    assert.equal(unicode.body.history[0].uses, "1");
  } finally {
    await instance.close({ destroy: true });
  }
});

test("follow and unfollow are idempotent; followed_tags pages by follow rows", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const first = await callJson(instance, alice, "POST", "/api/v1/tags/NewTag/follow");
    assert.equal(first.status, 200);
    assert.equal(first.body.name, "NewTag");
    assert.equal(first.body.following, true);
    const again = await callJson(instance, alice, "POST", "/api/v1/tags/newtag/follow");
    assert.equal(again.status, 200);
    assert.equal(again.body.id, first.body.id);
    assert.equal(again.body.following, true);
    // The tag now exists for everyone; bob does not follow it.
    const seen = await callJson(instance, bob, "GET", "/api/v1/tags/newtag");
    assert.equal(seen.body.following, false);
    assert.equal((await callJson(instance, alice, "POST", "/api/v1/tags/a-b/follow")).status, 404);

    const un = await callJson(instance, alice, "POST", "/api/v1/tags/NEWTAG/unfollow");
    assert.equal(un.status, 200);
    assert.equal(un.body.following, false);
    const unAgain = await callJson(instance, alice, "POST", "/api/v1/tags/newtag/unfollow");
    assert.equal(unAgain.status, 200);
    assert.equal(unAgain.body.following, false);

    // Paging: five follows, two per page, newest first, cursors from Link.
    const names = ["t1", "t2", "t3", "t4", "t5"];
    for (const n of names) await callJson(instance, alice, "POST", `/api/v1/tags/${n}/follow`);
    await callJson(instance, bob, "POST", "/api/v1/tags/bobonly/follow");
    const seenNames: string[] = [];
    let url: string | null = "/api/v1/followed_tags?limit=2";
    let pages = 0;
    while (url && pages < 5) {
      const page: { status: number; body: any; headers: Headers } = await callJson(
        instance,
        alice,
        "GET",
        url,
      );
      assert.equal(page.status, 200);
      if (page.body.length === 0) break;
      pages++;
      for (const t of page.body) {
        assert.equal(t.following, true);
        assert.match(t.id, /^\d+$/);
      }
      seenNames.push(...page.body.map((t: { name: string }) => t.name));
      const link = page.headers.get("link") ?? "";
      assert.match(link, /rel="prev"/);
      assert.match(link, /since_id=/);
      url = /<([^>]+)>; rel="next"/.exec(link)?.[1] ?? null;
    }
    assert.deepEqual(seenNames, ["t5", "t4", "t3", "t2", "t1"]);
    const all = await callJson(instance, alice, "GET", "/api/v1/followed_tags");
    assert.equal(all.body.length, 5);
    assert.equal(all.headers.get("link")?.includes('rel="next"'), false);
    // prev link returns newer follows only.
    await callJson(instance, alice, "POST", "/api/v1/tags/t6/follow");
    const firstPage = await callJson(instance, alice, "GET", "/api/v1/followed_tags?limit=2");
    assert.deepEqual(firstPage.body.map((t: { name: string }) => t.name), ["t6", "t5"]);
    const prev = /<([^>]+)>; rel="prev"/.exec(firstPage.headers.get("link")!)![1];
    assert.deepEqual((await callJson(instance, alice, "GET", prev)).body, []);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("feature/unfeature, featured tags CRUD, limit, suggestions, AP collection", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    await insertStatus(instance, alice.id, { tags: ["rust", "deno"] });
    await insertStatus(instance, alice.id, { tags: ["rust"] });
    await insertStatus(instance, alice.id, { tags: ["rust", "go"] });
    await insertStatus(instance, alice.id, { tags: ["deno"], visibility: "private" });

    const sugg = await callJson(instance, alice, "GET", "/api/v1/featured_tags/suggestions");
    assert.equal(sugg.status, 200);
    assert.deepEqual(sugg.body.map((t: { name: string }) => t.name), ["rust", "deno", "go"]);
    assert.equal(sugg.body[0].history.length, 7);

    const feat = await callJson(instance, alice, "POST", "/api/v1/tags/Rust/feature");
    assert.equal(feat.status, 200);
    assert.equal(feat.body.name, "rust");
    assert.equal(feat.body.featured, true);
    assert.equal(feat.body.featuring, true);
    assert.equal("id" in feat.body, false);
    assert.equal(
      (await callJson(instance, alice, "POST", "/api/v1/tags/rust/feature")).status,
      200,
    );
    const detail = await callJson(instance, alice, "GET", "/api/v1/tags/rust");
    assert.equal(detail.body.featured, true);

    const list = await callJson(instance, alice, "GET", "/api/v1/featured_tags");
    assert.equal(list.status, 200);
    assert.equal(list.body.length, 1);
    assert.equal(list.body[0].name, "rust");
    assert.equal(list.body[0].statuses_count, "3");
    assert.match(list.body[0].last_status_at, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(list.body[0].url, `${instance.origin}/@alice/tagged/rust`);

    const created = await callJson(instance, alice, "POST", "/api/v1/featured_tags", {
      name: "#deno",
    });
    assert.equal(created.status, 200);
    assert.equal(created.body.name, "deno");
    // The private post does not count, as Mastodon counts public and unlisted ones.
    assert.equal(created.body.statuses_count, "1");
    const dup = await callJson(instance, alice, "POST", "/api/v1/featured_tags", { name: "Deno" });
    assert.equal(dup.status, 200);
    assert.equal(dup.body.id, created.body.id);
    const blank = await callJson(instance, alice, "POST", "/api/v1/featured_tags", {});
    assert.equal(blank.status, 422);
    const invalid = await callJson(instance, alice, "POST", "/api/v1/featured_tags", {
      name: "no spaces",
    });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body.error, "Validation failed: Name is invalid");

    const sugg2 = await callJson(instance, alice, "GET", "/api/v1/featured_tags/suggestions");
    assert.deepEqual(sugg2.body.map((t: { name: string }) => t.name), ["go"]);

    // The ActivityPub collection lists them as Hashtags.
    const collection = await json(
      await instance.request("/users/alice/collections/tags", {
        headers: { accept: "application/activity+json" },
      }),
    );
    assert.equal(collection.totalItems, 2);
    const items = collection.orderedItems ?? collection.items;
    assert.deepEqual(items.map((i: { name: string }) => i.name).sort(), ["#deno", "#rust"]);
    assert.equal(items[0].type, "Hashtag");

    // Someone else's id, malformed ids.
    assert.equal(
      (await callJson(instance, bob, "DELETE", `/api/v1/featured_tags/${created.body.id}`)).status,
      404,
    );
    assert.equal(
      (await callJson(instance, bob, "DELETE", "/api/v1/featured_tags/abc")).status,
      404,
    );
    const del = await callJson(
      instance,
      alice,
      "DELETE",
      `/api/v1/featured_tags/${created.body.id}`,
    );
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, {});
    assert.equal(
      (await callJson(instance, alice, "DELETE", `/api/v1/featured_tags/${created.body.id}`))
        .status,
      404,
    );

    // Posting with a featured tag counts in the owner's list.
    const posted = await callJson(instance, alice, "POST", "/api/v1/statuses", {
      status: "more #Rust",
    });
    assert.equal(posted.status, 200);
    const recounted = await callJson(instance, alice, "GET", "/api/v1/featured_tags");
    assert.equal(recounted.body[0].statuses_count, "4");

    const unfeat = await callJson(instance, alice, "POST", "/api/v1/tags/rust/unfeature");
    assert.equal(unfeat.status, 200);
    assert.equal(unfeat.body.featured, false);
    assert.equal(
      (await callJson(instance, alice, "POST", "/api/v1/tags/rust/unfeature")).status,
      200,
    );
    assert.deepEqual((await callJson(instance, alice, "GET", "/api/v1/featured_tags")).body, []);

    // The limit (10 by default).
    for (let i = 0; i < 10; i++) {
      const r = await callJson(instance, bob, "POST", "/api/v1/featured_tags", {
        name: `tag${i}x`,
      });
      assert.equal(r.status, 200);
    }
    const over = await callJson(instance, bob, "POST", "/api/v1/featured_tags", { name: "eleven" });
    assert.equal(over.status, 422);
    assert.equal(
      over.body.error,
      "Validation failed: You have already featured the maximum number of hashtags",
    );
    const overTag = await callJson(instance, bob, "POST", "/api/v1/tags/eleven/feature");
    assert.equal(overTag.status, 422);
    // Re-featuring one already featured is fine at the limit.
    assert.equal(
      (await callJson(instance, bob, "POST", "/api/v1/featured_tags", { name: "tag3x" })).status,
      200,
    );
  } finally {
    await instance.close({ destroy: true });
  }
});
