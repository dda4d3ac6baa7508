/**
 * GET /api/v1/accounts/:id/statuses filters and paging, and the bound on
 * home feeds (trim to the newest 800 entries).
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { newId } from "../../db/ids.ts";
import { mediaAttachments } from "../../db/schema/mod.ts";
import { HOME_FEED_LIMIT, trimHomeFeed } from "../../actors/timelines/fanout.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { follow, ids, links, pathOf } from "./helpers.ts";

test("account statuses: filters, pins, tags, paging, blocks, hostile ids", async () => {
  const instance = await startInstance();
  try {
    const [alice, bob, carol] = await Promise.all(
      ["alice", "bob", "carol"].map((n) => createUser(instance, n)),
    );
    const { db } = instance.rookery.ctx.database;
    const bobPost = await postStatus(instance, bob, "bob's");
    const plain = await postStatus(instance, alice, "plain #tea");
    const media = await postStatus(instance, alice, "with a picture");
    await db.insert(mediaAttachments).values({
      id: newId(),
      accountId: alice.id,
      statusId: media.id,
      type: "image",
      remoteUrl: "https://example.com/p.png",
    });
    const reply = await postStatus(instance, alice, "@bob reply", { in_reply_to_id: bobPost.id });
    const thread = await postStatus(instance, alice, "thread", { in_reply_to_id: plain.id });
    const boost = await ok(instance, alice, "POST", `/api/v1/statuses/${bobPost.id}/reblog`);
    await ok(instance, alice, "POST", `/api/v1/statuses/${media.id}/pin`);
    const path = `/api/v1/accounts/${alice.id}/statuses`;

    assert.deepEqual(await ids(instance, null, path), [
      boost.id,
      thread.id,
      reply.id,
      media.id,
      plain.id,
    ]);
    assert.deepEqual(await ids(instance, null, `${path}?only_media=true`), [media.id]);
    assert.deepEqual(
      await ids(instance, null, `${path}?exclude_replies=true`),
      [boost.id, thread.id, media.id, plain.id],
      "replies to others go, a thread of one's own stays",
    );
    assert.deepEqual(
      await ids(instance, null, `${path}?exclude_reblogs=true&exclude_replies=1`),
      [thread.id, media.id, plain.id],
    );
    assert.deepEqual(await ids(instance, null, `${path}?pinned=true`), [media.id]);
    assert.deepEqual(await ids(instance, null, `${path}?tagged=TEA`), [plain.id]);
    assert.deepEqual(await ids(instance, null, `${path}?tagged=nosuch`), []);
    // exclude_direct (4.6): a direct message is listed for who may see it, unless left out.
    const dm = await postStatus(instance, alice, "@bob psst", { visibility: "direct" });
    assert.equal((await ids(instance, bob, path))[0], dm.id);
    assert.ok(!(await ids(instance, bob, `${path}?exclude_direct=true`)).includes(dm.id));
    assert.ok(!(await ids(instance, alice, `${path}?exclude_direct=1`)).includes(dm.id));
    await ok(instance, alice, "DELETE", `/api/v1/statuses/${dm.id}`);
    const [shownBoost] = await ok<any[]>(instance, null, "GET", `${path}?limit=1`);
    assert.equal(shownBoost.reblog.id, bobPost.id);

    const page = await callJson<any[]>(instance, null, "GET", `${path}?limit=2`);
    assert.equal(page.body.length, 2);
    const next = links(page.headers).next!;
    assert.match(next, /max_id=/);
    assert.deepEqual(
      (await ok<any[]>(instance, null, "GET", pathOf(next))).map((s) => s.id),
      [reply.id, media.id],
    );

    // A boost of something the viewer may not see is not shown either.
    const carolPrivate = await postStatus(instance, carol, "private", { visibility: "private" });
    await follow(instance, alice, carol);
    await ok(instance, carol, "POST", `/api/v1/statuses/${carolPrivate.id}/reblog`);
    assert.equal((await ids(instance, bob, `/api/v1/accounts/${carol.id}/statuses`)).length, 0);

    // An account that blocks the viewer shows the viewer nothing.
    await ok(instance, alice, "POST", `/api/v1/accounts/${bob.id}/block`);
    assert.deepEqual(await ids(instance, bob, path), []);

    for (const bad of ["/api/v1/accounts/99999999/statuses", "/api/v1/accounts/abc/statuses"]) {
      assert.equal((await callJson(instance, null, "GET", bad)).status, 404, bad);
    }
    const writer = await createUser(instance, "writer", { scopes: ["write"] });
    assert.equal((await callJson(instance, writer, "GET", path)).status, 403);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("home feeds are trimmed to the newest entries", async () => {
  const instance = await startInstance();
  try {
    const [alice, bob] = await Promise.all([
      createUser(instance, "alice"),
      createUser(instance, "bob"),
    ]);
    await follow(instance, bob, alice);
    const { database } = instance.rookery.ctx;
    // 850 statuses of alice's, straight into bob's feed (fan-out is covered elsewhere).
    await database.db.execute(sql`WITH made AS (
        INSERT INTO statuses (id, uri, account_id, local, content)
        SELECT ${newId()}::bigint + g, 'https://example.com/s/' || g, ${alice.id}::bigint, true, 'x'
        FROM generate_series(1, 850) g RETURNING id)
      INSERT INTO home_feed (account_id, status_id) SELECT ${bob.id}::bigint, id FROM made`);
    await trimHomeFeed(database.db, bob.id);
    const [{ n, oldest }] = await database.rows<{ n: number | string; oldest: string }>(
      sql`SELECT count(*) AS n, min(status_id)::text AS oldest FROM home_feed
        WHERE account_id = ${bob.id}::bigint`,
    );
    assert.equal(Number(n), HOME_FEED_LIMIT);
    const [{ expected }] = await database.rows<{ expected: string }>(
      sql`SELECT id::text AS expected FROM statuses WHERE account_id = ${alice.id}::bigint
        ORDER BY id DESC OFFSET ${HOME_FEED_LIMIT - 1} LIMIT 1`,
    );
    assert.equal(oldest, expected, "the newest entries are the ones kept");
    assert.equal((await ids(instance, bob, "/api/v1/timelines/home?limit=40")).length, 40);
  } finally {
    await instance.close({ destroy: true });
  }
});
