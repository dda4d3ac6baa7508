/**
 * GET /api/v1/notifications and friends: filters, paging and Link headers,
 * one notification (404 for someone else's), dismiss, clear, unread_count
 * with a marker, hidden statuses, and the scope matrix of every
 * notification route.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { links } from "../fixtures/api.ts";
import { fixtures } from "./helpers.ts";
import { assertScopeMatrix, scopeFixtures } from "../oauth/scope_matrix.ts";
import { newId } from "../../db/ids.ts";
import { blocks, markers, statuses } from "../../db/schema/mod.ts";

test("v1 notifications: filters, paging, show, dismiss, clear, unread_count", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const alice = await f.user("alice");
    const bob = await f.user("bob");
    const carol = await f.user("carol");
    const post = await f.status(alice.id);
    const mention = await f.status(bob.id, {}, [alice.id]);

    const ids: string[] = [];
    const add = async (n: Parameters<typeof f.notifyNow>[0]) => {
      const id = await f.notifyNow(n);
      assert.ok(id, JSON.stringify(n));
      ids.push(id!);
      return id!;
    };
    await add({ type: "follow", accountId: alice.id, fromAccountId: bob.id });
    await add({ type: "favourite", accountId: alice.id, fromAccountId: bob.id, statusId: post.id });
    await add({
      type: "favourite",
      accountId: alice.id,
      fromAccountId: carol.id,
      statusId: post.id,
    });
    await add({
      type: "mention",
      accountId: alice.id,
      fromAccountId: bob.id,
      statusId: mention.id,
    });
    await add({ type: "follow", accountId: alice.id, fromAccountId: carol.id });
    const newestFirst = [...ids].reverse();

    // The whole list, newest first, with the entity's shape.
    const all = await f.call(alice, "GET", "/api/v1/notifications");
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.map((n: any) => n.id), newestFirst);
    const [fav] = all.body.filter((n: any) => n.type === "favourite");
    assert.deepEqual(Object.keys(fav), [
      "id",
      "type",
      "created_at",
      "group_key",
      "account",
      "status",
    ]);
    assert.equal(fav.status.id, post.id);
    assert.match(fav.group_key, new RegExp(`^favourite-${post.id}-\\d+$`));
    const [men] = all.body.filter((n: any) => n.type === "mention");
    assert.equal(men.group_key, `ungrouped-${men.id}`);
    const [fol] = all.body.filter((n: any) => n.type === "follow");
    assert.equal(fol.status, undefined);

    // types[], exclude_types[], account_id (and the Rails spellings of arrays).
    const types = await f.call(
      alice,
      "GET",
      "/api/v1/notifications?types[]=follow&types[]=mention",
    );
    assert.deepEqual(types.body.map((n: any) => n.type), ["follow", "mention", "follow"]);
    const excluded = await f.call(
      alice,
      "GET",
      "/api/v1/notifications?exclude_types[]=follow&exclude_types[]=favourite",
    );
    assert.deepEqual(excluded.body.map((n: any) => n.type), ["mention"]);
    const fromCarol = await f.call(alice, "GET", `/api/v1/notifications?account_id=${carol.id}`);
    assert.deepEqual(fromCarol.body.map((n: any) => n.type), ["follow", "favourite"]);
    const unknownType = await f.call(alice, "GET", "/api/v1/notifications?types[]=nonsense");
    assert.deepEqual(unknownType.body, []);
    const junkAccount = await f.call(alice, "GET", "/api/v1/notifications?account_id=junk");
    assert.deepEqual(junkAccount.body, []);
    const malformed = await f.call(alice, "GET", "/api/v1/notifications?types[x][y]=1");
    assert.equal(malformed.status, 422);
    assert.match(malformed.body.error, /^Validation failed: /);
    const junkCursor = await f.call(alice, "GET", "/api/v1/notifications?max_id=junk&limit=-2");
    assert.deepEqual(junkCursor.body.map((n: any) => n.id), newestFirst.slice(0, 2));

    // Paging: limit, max_id, min_id, since_id and Link headers that keep the filters.
    const page1 = await f.call(
      alice,
      "GET",
      "/api/v1/notifications?limit=2&exclude_types[]=mention",
    );
    assert.deepEqual(page1.body.map((n: any) => n.id), [ids[4], ids[2]]);
    const l1 = links(page1.headers.get("Link"));
    assert.equal(l1.next.searchParams.get("max_id"), ids[2]);
    assert.equal(l1.next.searchParams.get("exclude_types[]"), "mention");
    assert.equal(l1.prev.searchParams.get("min_id"), ids[4]);
    const page2 = await f.call(alice, "GET", l1.next.pathname + l1.next.search);
    assert.deepEqual(page2.body.map((n: any) => n.id), [ids[1], ids[0]]);
    const up = await f.call(alice, "GET", `/api/v1/notifications?min_id=${ids[0]}&limit=2`);
    assert.deepEqual(up.body.map((n: any) => n.id), [ids[2], ids[1]]);
    const since = await f.call(alice, "GET", `/api/v1/notifications?since_id=${ids[0]}&limit=2`);
    assert.deepEqual(since.body.map((n: any) => n.id), [ids[4], ids[3]]);
    const capped = await f.call(alice, "GET", "/api/v1/notifications?limit=1000");
    assert.equal(capped.body.length, 5);
    const empty = await f.call(alice, "GET", `/api/v1/notifications?max_id=${ids[0]}`);
    assert.deepEqual(empty.body, []);
    assert.equal(empty.headers.get("Link"), null);

    // One notification; someone else's and malformed ids are 404.
    const one = await f.call(alice, "GET", `/api/v1/notifications/${ids[3]}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.type, "mention");
    assert.equal(one.body.status.id, mention.id);
    for (const id of [ids[3], "nope", "99999999999999999999999"]) {
      const res = await f.call(bob, "GET", `/api/v1/notifications/${id}`);
      assert.equal(res.status, 404, id);
      assert.deepEqual(res.body, { error: "Record not found" });
    }

    // unread_count: everything without a marker; newer than the marker with one.
    let count = await f.call(alice, "GET", "/api/v1/notifications/unread_count");
    assert.deepEqual(count.body, { count: 5 });
    await f.db.insert(markers).values({
      userId: alice.userId,
      timeline: "notifications",
      lastReadId: ids[1],
    });
    count = await f.call(alice, "GET", "/api/v1/notifications/unread_count");
    assert.deepEqual(count.body, { count: 3 });
    count = await f.call(alice, "GET", "/api/v1/notifications/unread_count?limit=2");
    assert.deepEqual(count.body, { count: 2 });
    count = await f.call(alice, "GET", "/api/v1/notifications/unread_count?types[]=follow");
    assert.deepEqual(count.body, { count: 1 });
    count = await f.call(
      alice,
      "GET",
      `/api/v1/notifications/unread_count?exclude_types[]=follow&account_id=${bob.id}`,
    );
    assert.deepEqual(count.body, { count: 1 });

    // A status the recipient can no longer see hides its notification.
    await f.db.update(statuses).set({ deletedAt: new Date() }).where(eq(statuses.id, mention.id));
    const afterDelete = await f.call(alice, "GET", "/api/v1/notifications");
    assert.ok(!afterDelete.body.some((n: any) => n.type === "mention"));
    assert.equal((await f.call(alice, "GET", `/api/v1/notifications/${ids[3]}`)).status, 404);
    // Blocking the sender hides what they caused.
    await f.db.insert(blocks).values({
      id: newId(),
      accountId: alice.id,
      targetAccountId: carol.id,
    });
    const afterBlock = await f.call(alice, "GET", "/api/v1/notifications");
    assert.deepEqual(afterBlock.body.map((n: any) => n.id), [ids[1], ids[0]]);
    await f.db.delete(blocks);

    // Dismiss: only one's own; then clear.
    const notMine = await f.call(bob, "POST", `/api/v1/notifications/${ids[0]}/dismiss`);
    assert.equal(notMine.status, 404);
    const dismissed = await f.call(alice, "POST", `/api/v1/notifications/${ids[0]}/dismiss`);
    assert.equal(dismissed.status, 200);
    assert.deepEqual(dismissed.body, {});
    assert.equal((await f.call(alice, "GET", `/api/v1/notifications/${ids[0]}`)).status, 404);
    assert.equal(
      (await f.call(alice, "POST", `/api/v1/notifications/${ids[0]}/dismiss`)).status,
      404,
    );
    assert.equal((await f.call(alice, "POST", "/api/v1/notifications/junk/dismiss")).status, 404);
    await f.notifyNow({ type: "follow", accountId: bob.id, fromAccountId: carol.id });
    const cleared = await f.call(alice, "POST", "/api/v1/notifications/clear");
    assert.deepEqual([cleared.status, cleared.body], [200, {}]);
    assert.deepEqual((await f.call(alice, "GET", "/api/v1/notifications")).body, []);
    // Bob's notification survived Alice's clear.
    assert.equal((await f.call(bob, "GET", "/api/v1/notifications")).body.length, 1);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("notifications: scope matrix of the v1, v2 and v2_alpha routes", async (t) => {
  const instance = await startInstance();
  try {
    const send = (path: string, init: RequestInit) => instance.request(path, init);
    const read = ["read:notifications"];
    const write = ["write:notifications"];
    const rows = [
      { method: "GET", path: "/api/v1/notifications", kind: "user" as const, scopes: read },
      { method: "GET", path: "/api/v1/notifications/1", kind: "user" as const, scopes: read },
      {
        method: "GET",
        path: "/api/v1/notifications/unread_count",
        kind: "user" as const,
        scopes: read,
      },
      { method: "POST", path: "/api/v1/notifications/clear", kind: "user" as const, scopes: write },
      {
        method: "POST",
        path: "/api/v1/notifications/1/dismiss",
        kind: "user" as const,
        scopes: write,
      },
    ];
    for (const prefix of ["/api/v2", "/api/v2_alpha"]) {
      rows.push(
        { method: "GET", path: `${prefix}/notifications`, kind: "user", scopes: read },
        { method: "GET", path: `${prefix}/notifications/unread_count`, kind: "user", scopes: read },
        { method: "GET", path: `${prefix}/notifications/policy`, kind: "user", scopes: read },
        { method: "POST", path: `${prefix}/notifications/clear`, kind: "user", scopes: write },
        { method: "GET", path: `${prefix}/notifications/ungrouped-1`, kind: "user", scopes: read },
        {
          method: "POST",
          path: `${prefix}/notifications/ungrouped-1/dismiss`,
          kind: "user",
          scopes: write,
        },
      );
    }
    await assertScopeMatrix(t, send, await scopeFixtures(instance), rows);
  } finally {
    await instance.close({ destroy: true });
  }
});
