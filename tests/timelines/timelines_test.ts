/**
 * Reading timelines: home paging and Link headers, a missing home feed
 * rebuilt before its first page is answered, public (local/remote/only_media, no replies to others, no
 * boosts), hashtag (any/all/none, 404), link, list ownership, public
 * preview switched off, and private/direct statuses never leaking.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { newId } from "../../db/ids.ts";
import { mediaAttachments, previewCards, statusPreviewCards } from "../../db/schema/mod.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { follow, ids, links, pathOf } from "./helpers.ts";

test("home timeline: paging, Link headers, limits, a missing feed rebuilt on first read", async () => {
  const instance = await startInstance();
  try {
    const [alice, bob] = await Promise.all([
      createUser(instance, "alice"),
      createUser(instance, "bob"),
    ]);
    await follow(instance, bob, alice);
    const posted: string[] = [];
    for (let i = 0; i < 5; i++) posted.push((await postStatus(instance, alice, `post ${i}`)).id);
    const newestFirst = [...posted].reverse();

    const first = await callJson<any[]>(instance, bob, "GET", "/api/v1/timelines/home?limit=2");
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.map((s) => s.id), newestFirst.slice(0, 2));
    const l = links(first.headers);
    assert.match(l.next!, /max_id=/);
    assert.match(l.prev!, /min_id=/);
    assert.match(l.next!, /limit=2/);
    const second = await callJson<any[]>(instance, bob, "GET", pathOf(l.next!));
    assert.deepEqual(second.body.map((s) => s.id), newestFirst.slice(2, 4));
    const newer = await ids(instance, bob, `/api/v1/timelines/home?min_id=${posted[1]}&limit=2`);
    assert.deepEqual(newer, [posted[3], posted[2]], "min_id pages forward, newest first");
    const since = await ids(instance, bob, `/api/v1/timelines/home?since_id=${posted[1]}&limit=2`);
    assert.deepEqual(since, [posted[4], posted[3]], "since_id gives the newest");
    const capped = await ids(instance, bob, "/api/v1/timelines/home?limit=400");
    assert.equal(capped.length, 5);
    const empty = await callJson(
      instance,
      bob,
      "GET",
      `/api/v1/timelines/home?max_id=${posted[0]}`,
    );
    assert.equal(empty.status, 200);
    assert.equal(empty.headers.get("link"), null, "an empty page has no Link header");

    // A feed missing entirely (older data set): rebuilt before the first page
    // is answered, so that page already shows it (not a 206 and an empty list).
    const { database } = instance.rookery.ctx;
    await database.db.execute(sql`DELETE FROM home_feed WHERE account_id = ${bob.id}::bigint`);
    const rebuilt = await callJson<any[]>(instance, bob, "GET", "/api/v1/timelines/home");
    assert.equal(rebuilt.status, 200);
    assert.deepEqual(rebuilt.body.map((s) => s.id), newestFirst);

    // A quiet feed is not a missing one: nothing to show, an empty 200.
    const carol = await createUser(instance, "carol");
    await follow(instance, carol, bob);
    const quiet = await callJson<any[]>(instance, carol, "GET", "/api/v1/timelines/home");
    assert.equal(quiet.status, 200);
    assert.deepEqual(quiet.body, []);

    // Scopes and tokens.
    assert.equal((await callJson(instance, null, "GET", "/api/v1/timelines/home")).status, 401);
    const writer = await createUser(instance, "writer", { scopes: ["write"] });
    assert.equal((await callJson(instance, writer, "GET", "/api/v1/timelines/home")).status, 403);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("public, tag, link and list timelines; nothing private leaks", async () => {
  const instance = await startInstance();
  try {
    const [alice, bob, carol] = await Promise.all(
      ["alice", "bob", "carol"].map((n) => createUser(instance, n)),
    );
    const { db } = instance.rookery.ctx.database;
    const pub = await postStatus(instance, alice, "public #cats #dogs");
    const catsOnly = await postStatus(instance, alice, "only #cats");
    const dogsOnly = await postStatus(instance, bob, "only #dogs");
    const unlisted = await postStatus(instance, alice, "unlisted #cats", {
      visibility: "unlisted",
    });
    const priv = await postStatus(instance, alice, "private #cats", { visibility: "private" });
    const direct = await postStatus(instance, alice, "@bob direct #cats", { visibility: "direct" });
    const replyToBob = await postStatus(instance, alice, "@bob answer #cats", {
      in_reply_to_id: dogsOnly.id,
    });
    const selfReply = await postStatus(instance, alice, "thread", { in_reply_to_id: pub.id });
    const boost = await ok(instance, bob, "POST", `/api/v1/statuses/${pub.id}/reblog`);
    await db.insert(mediaAttachments).values({
      id: newId(),
      accountId: alice.id,
      statusId: catsOnly.id,
      type: "image",
      remoteUrl: "https://example.com/cat.png",
    });

    for (const viewer of [null, carol]) {
      const ids1 = await ids(instance, viewer, "/api/v1/timelines/public?limit=40");
      assert.ok(ids1.includes(pub.id) && ids1.includes(selfReply.id) && ids1.includes(dogsOnly.id));
      for (const hidden of [unlisted, priv, direct, replyToBob, boost]) {
        assert.ok(!ids1.includes(hidden.id), `public timeline leaks ${hidden.content}`);
      }
      const cats = await ids(instance, viewer, "/api/v1/timelines/tag/cats?limit=40");
      assert.deepEqual(
        cats,
        [replyToBob.id, catsOnly.id, pub.id],
        "tag keeps replies, only public",
      );
      const account = await ids(instance, viewer, `/api/v1/accounts/${alice.id}/statuses`);
      assert.ok(!account.includes(priv.id) && !account.includes(direct.id));
      assert.ok(account.includes(unlisted.id) && account.includes(pub.id));
    }
    assert.deepEqual(
      await ids(instance, null, "/api/v1/timelines/public?only_media=true"),
      [catsOnly.id],
    );
    assert.equal((await ids(instance, null, "/api/v1/timelines/public?remote=true")).length, 0);
    assert.ok((await ids(instance, null, "/api/v1/timelines/public?local=true")).includes(pub.id));
    // The mentioned account sees the direct status on the author's profile; strangers do not.
    assert.ok(
      (await ids(instance, bob, `/api/v1/accounts/${alice.id}/statuses`)).includes(direct.id),
    );

    const tag = (q: string) => ids(instance, null, `/api/v1/timelines/tag/cats?${q}`);
    assert.deepEqual(await tag("any[]=dogs"), [replyToBob.id, dogsOnly.id, catsOnly.id, pub.id]);
    assert.deepEqual(await tag("all[]=dogs"), [pub.id]);
    assert.deepEqual(await tag("none[]=dogs"), [replyToBob.id, catsOnly.id]);
    assert.deepEqual(await tag("all[]=nosuchtag"), []);
    assert.deepEqual(await tag("only_media=1"), [catsOnly.id]);
    const taggedPage = await callJson(instance, null, "GET", "/api/v1/timelines/tag/CATS?limit=1");
    assert.match(links(taggedPage.headers).next!, /max_id=/);
    assert.equal(
      (await callJson(instance, null, "GET", "/api/v1/timelines/tag/nosuchtag")).status,
      404,
    );

    // Muting hides an author from the public kinds of timeline too.
    await ok(instance, carol, "POST", `/api/v1/accounts/${bob.id}/mute`);
    assert.ok(!(await ids(instance, carol, "/api/v1/timelines/public")).includes(dogsOnly.id));

    // Link timeline: statuses with a preview card of the URL.
    const cardId = newId();
    await db.insert(previewCards).values({ id: cardId, url: "https://news.example/story" });
    await db.insert(statusPreviewCards).values([
      { statusId: pub.id, previewCardId: cardId },
      { statusId: priv.id, previewCardId: cardId },
    ]);
    const link = (u: string) => ids(instance, null, `/api/v1/timelines/link?url=${u}`);
    assert.deepEqual(await link(encodeURIComponent("https://news.example/story")), [pub.id]);
    assert.deepEqual(await link(encodeURIComponent("https://news.example/other")), []);
    assert.deepEqual(await ids(instance, null, "/api/v1/timelines/link"), []);

    // List timelines belong to their owner.
    const list = await ok(instance, bob, "POST", "/api/v1/lists", { title: "L" });
    assert.equal(
      (await callJson(instance, bob, "GET", `/api/v1/timelines/list/${list.id}`)).status,
      200,
    );
    for (
      const path of [
        `/api/v1/timelines/list/${list.id}`,
        "/api/v1/timelines/list/123",
        "/api/v1/timelines/list/x",
      ]
    ) {
      assert.equal((await callJson(instance, carol, "GET", path)).status, 404);
    }

    // The deprecated direct timeline.
    assert.deepEqual(await ids(instance, bob, "/api/v1/timelines/direct"), [direct.id]);
    assert.deepEqual(await ids(instance, carol, "/api/v1/timelines/direct"), []);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("public preview off: anonymous requests get 401, app tokens may read", async () => {
  const instance = await startInstance({ env: { PUBLIC_PREVIEW: "false" } });
  try {
    const alice = await createUser(instance, "alice");
    await postStatus(instance, alice, "hello #cats");
    for (
      const path of [
        "/api/v1/timelines/public",
        "/api/v1/timelines/tag/cats",
        "/api/v1/timelines/link?url=x",
      ]
    ) {
      const res = await callJson(instance, null, "GET", path);
      assert.equal(res.status, 401);
      assert.equal(res.body.error, "This API requires an authenticated user");
      assert.equal((await callJson(instance, alice, "GET", path)).status, 200);
    }
    const noRead = await createUser(instance, "noread", { scopes: ["write"] });
    assert.equal((await callJson(instance, noRead, "GET", "/api/v1/timelines/public")).status, 403);
  } finally {
    await instance.close({ destroy: true });
  }
});
