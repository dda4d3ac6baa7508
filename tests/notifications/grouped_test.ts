/**
 * Grouped notifications (v2 and the v2_alpha alias): favourites of one
 * status and follows grouped, mentions ungrouped, grouped_types[],
 * partial avatars, paging with Link headers, one group, dismissing a group
 * and the unread count of groups.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { links } from "../fixtures/api.ts";
import { fixtures } from "./helpers.ts";
import { markers } from "../../db/schema/mod.ts";

test("grouped notifications: groups, partial avatars, paging, show, dismiss, unread_count", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const alice = await f.user("alice");
    const fans = [];
    for (const name of ["bob", "carol", "dave"]) fans.push(await f.user(name));
    const [bob, carol, dave] = fans;
    const post = await f.status(alice.id);
    const other = await f.status(alice.id);
    const mention = await f.status(bob.id, {}, [alice.id]);

    const ids: Record<string, string> = {};
    const add = async (label: string, n: Parameters<typeof f.notifyNow>[0]) => {
      const id = await f.notifyNow(n);
      assert.ok(id, label);
      ids[label] = id!;
    };
    await add("fav-bob", {
      type: "favourite",
      accountId: alice.id,
      fromAccountId: bob.id,
      statusId: post.id,
    });
    await add("follow-bob", { type: "follow", accountId: alice.id, fromAccountId: bob.id });
    await add("fav-carol", {
      type: "favourite",
      accountId: alice.id,
      fromAccountId: carol.id,
      statusId: post.id,
    });
    await add("mention", {
      type: "mention",
      accountId: alice.id,
      fromAccountId: bob.id,
      statusId: mention.id,
    });
    await add("fav-other", {
      type: "favourite",
      accountId: alice.id,
      fromAccountId: dave.id,
      statusId: other.id,
    });
    await add("follow-carol", { type: "follow", accountId: alice.id, fromAccountId: carol.id });
    await add("fav-dave", {
      type: "favourite",
      accountId: alice.id,
      fromAccountId: dave.id,
      statusId: post.id,
    });

    const res = await f.call(alice, "GET", "/api/v2/notifications");
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ["accounts", "statuses", "notification_groups"]);
    const groups = res.body.notification_groups;
    // Newest first by each group's newest notification.
    assert.deepEqual(groups.map((g: any) => g.type), [
      "favourite",
      "follow",
      "favourite",
      "mention",
    ]);
    const [favs, follows, favOther, men] = groups;
    assert.match(favs.group_key, new RegExp(`^favourite-${post.id}-\\d+$`));
    assert.equal(favs.notifications_count, 3);
    assert.equal(favs.most_recent_notification_id, ids["fav-dave"]);
    assert.deepEqual(favs.sample_account_ids, [dave.id, carol.id, bob.id]);
    assert.equal(favs.status_id, post.id);
    assert.equal(favs.page_max_id, ids["fav-dave"]);
    assert.equal(favs.page_min_id, ids["fav-bob"]);
    assert.ok(!Number.isNaN(Date.parse(favs.latest_page_notification_at)));
    const pagedKeys = [
      "group_key",
      "notifications_count",
      "type",
      "most_recent_notification_id",
      "page_min_id",
      "page_max_id",
      "latest_page_notification_at",
      "sample_account_ids",
      "status_id",
    ];
    assert.deepEqual(Object.keys(favs), pagedKeys);
    assert.match(follows.group_key, /^follow-\d+$/);
    assert.equal(follows.notifications_count, 2);
    assert.deepEqual(follows.sample_account_ids, [carol.id, bob.id]);
    assert.equal(follows.status_id, undefined);
    assert.equal(favOther.notifications_count, 1);
    assert.equal(favOther.status_id, other.id);
    assert.equal(men.group_key, `ungrouped-${ids.mention}`);
    assert.equal(men.notifications_count, 1);
    // A group of one has page bounds too (Mastodon sets them on every group of a
    // page): Phanpy dates each entry by latest_page_notification_at.
    assert.deepEqual(Object.keys(men), pagedKeys);
    assert.equal(men.page_min_id, ids.mention);
    assert.equal(men.page_max_id, ids.mention);
    const mentionV1 = await f.call(alice, "GET", `/api/v1/notifications/${ids.mention}`);
    assert.equal(men.latest_page_notification_at, mentionV1.body.created_at);
    assert.deepEqual(men.sample_account_ids, [bob.id]);
    // Each account and status once.
    assert.deepEqual(
      res.body.accounts.map((a: any) => a.id).sort(),
      [bob.id, carol.id, dave.id].sort(),
    );
    assert.deepEqual(
      res.body.statuses.map((s: any) => s.id).sort(),
      [post.id, other.id, mention.id].sort(),
    );

    // The v1 list shows the same keys.
    const v1 = await f.call(alice, "GET", "/api/v1/notifications?types[]=favourite&limit=1");
    assert.equal(v1.body[0].group_key, favs.group_key);

    // partial_avatars: first sample account in full, the others stripped.
    const partial = await f.call(
      alice,
      "GET",
      "/api/v2/notifications?expand_accounts=partial_avatars",
    );
    assert.deepEqual(Object.keys(partial.body), [
      "accounts",
      "partial_accounts",
      "statuses",
      "notification_groups",
    ]);
    assert.deepEqual(
      partial.body.accounts.map((a: any) => a.id).sort(),
      [bob.id, carol.id, dave.id].sort(),
    );
    // bob and carol are the first of some group, so only they appear in full; none is partial.
    assert.deepEqual(partial.body.partial_accounts, []);
    const onlyFavs = await f.call(
      alice,
      "GET",
      "/api/v2/notifications?expand_accounts=partial_avatars&types[]=favourite&limit=1",
    );
    assert.deepEqual(onlyFavs.body.accounts.map((a: any) => a.id), [dave.id]);
    assert.deepEqual(onlyFavs.body.partial_accounts.map((a: any) => a.id), [carol.id, bob.id]);
    assert.deepEqual(Object.keys(onlyFavs.body.partial_accounts[0]), [
      "id",
      "acct",
      "locked",
      "bot",
      "url",
      "avatar",
      "avatar_static",
      "avatar_description",
    ]);

    // grouped_types[]: only favourites group; follows come one by one.
    const favOnly = await f.call(alice, "GET", "/api/v2/notifications?grouped_types[]=favourite");
    assert.deepEqual(
      favOnly.body.notification_groups.map((g: any) => [g.type, g.notifications_count]),
      [["favourite", 3], ["follow", 1], ["favourite", 1], ["mention", 1], ["follow", 1]],
    );
    assert.equal(
      favOnly.body.notification_groups[1].group_key,
      `ungrouped-${ids["follow-carol"]}`,
    );
    // What Phanpy asks for (masto.js, limit 20): every entry, grouped or not, has its
    // page bounds and a date.
    const phanpy = await f.call(alice, "GET", "/api/v2/notifications?limit=20");
    for (const g of [...phanpy.body.notification_groups, ...favOnly.body.notification_groups]) {
      assert.ok(g.page_min_id && g.page_max_id, g.group_key);
      assert.ok(!Number.isNaN(Date.parse(g.latest_page_notification_at)), g.group_key);
    }

    // Paging by groups: limit=2, next is the oldest head on the page; the alias agrees.
    const p1 = await f.call(alice, "GET", "/api/v2_alpha/notifications?limit=2");
    assert.deepEqual(p1.body.notification_groups.map((g: any) => g.group_key), [
      favs.group_key,
      follows.group_key,
    ]);
    const l1 = links(p1.headers.get("Link"));
    assert.equal(l1.next.pathname, "/api/v2_alpha/notifications");
    assert.equal(l1.next.searchParams.get("max_id"), ids["follow-carol"]);
    assert.equal(l1.prev.searchParams.get("min_id"), ids["fav-dave"]);
    // On a full page, the follows group's page covers only ids from its head down to the page's oldest head.
    assert.equal(p1.body.notification_groups[1].page_min_id, ids["follow-carol"]);
    const p2 = await f.call(alice, "GET", l1.next.pathname + l1.next.search);
    assert.deepEqual(p2.body.notification_groups.map((g: any) => g.most_recent_notification_id), [
      ids["fav-other"],
      ids.mention,
    ]);
    // The third page meets the first two groups again, counted up to the page's end.
    const l2 = links(p2.headers.get("Link"));
    assert.equal(l2.next.searchParams.get("max_id"), ids.mention);
    const p3 = await f.call(alice, "GET", l2.next.pathname + l2.next.search);
    assert.deepEqual(
      p3.body.notification_groups.map((g: any) => [
        g.group_key,
        g.notifications_count,
        g.most_recent_notification_id,
        g.page_min_id,
        g.page_max_id,
      ]),
      [
        // A full page ends at its oldest head: fav-bob waits for the next page.
        [favs.group_key, 2, ids["fav-carol"], ids["fav-carol"], ids["fav-carol"]],
        [follows.group_key, 1, ids["follow-bob"], ids["follow-bob"], ids["follow-bob"]],
      ],
    );
    const up = await f.call(alice, "GET", `/api/v2/notifications?min_id=${ids.mention}&limit=2`);
    assert.deepEqual(up.body.notification_groups.map((g: any) => g.most_recent_notification_id), [
      ids["follow-carol"],
      ids["fav-other"],
    ]);
    const past = await f.call(alice, "GET", `/api/v2/notifications?max_id=${ids["fav-bob"]}`);
    assert.deepEqual(past.body, { accounts: [], statuses: [], notification_groups: [] });
    assert.equal(past.headers.get("Link"), null);

    // One group by key, and an ungrouped one; someone else's key is 404.
    const one = await f.call(alice, "GET", `/api/v2/notifications/${favs.group_key}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.notification_groups.length, 1);
    assert.equal(one.body.notification_groups[0].notifications_count, 3);
    assert.equal(one.body.notification_groups[0].page_min_id, undefined);
    assert.deepEqual(one.body.statuses.map((s: any) => s.id), [post.id]);
    const single = await f.call(
      alice,
      "GET",
      `/api/v2_alpha/notifications/ungrouped-${ids.mention}`,
    );
    assert.equal(single.body.notification_groups[0].type, "mention");
    assert.equal((await f.call(bob, "GET", `/api/v2/notifications/${favs.group_key}`)).status, 404);
    assert.equal((await f.call(alice, "GET", "/api/v2/notifications/ungrouped-junk")).status, 404);
    assert.equal(
      (await f.call(alice, "GET", `/api/v2/notifications/${"x".repeat(5000)}`)).status,
      404,
    );

    // The policy clients read on their notifications screen: Mastodon's defaults, no requests
    // (tests/notification_policy/ covers the policy itself).
    const policy = await f.call(alice, "GET", "/api/v2/notifications/policy");
    assert.equal(policy.status, 200);
    assert.equal(policy.body.for_not_following, "accept");
    assert.equal(policy.body.for_private_mentions, "filter");
    assert.deepEqual(policy.body.summary, {
      pending_requests_count: 0,
      pending_notifications_count: 0,
    });

    // unread_count of groups, with and without a marker.
    let count = await f.call(alice, "GET", "/api/v2/notifications/unread_count");
    assert.deepEqual(count.body, { count: 4 });
    await f.db.insert(markers).values({
      userId: alice.userId,
      timeline: "notifications",
      lastReadId: ids.mention,
    });
    count = await f.call(alice, "GET", "/api/v2_alpha/notifications/unread_count");
    assert.deepEqual(count.body, { count: 3 });
    count = await f.call(alice, "GET", "/api/v2/notifications/unread_count?limit=1");
    assert.deepEqual(count.body, { count: 1 });

    // Dismissing a group removes all of it, and only for its owner.
    const notMine = await f.call(bob, "POST", `/api/v2/notifications/${favs.group_key}/dismiss`);
    assert.deepEqual([notMine.status, notMine.body], [200, {}]);
    const dismissed = await f.call(
      alice,
      "POST",
      `/api/v2/notifications/${favs.group_key}/dismiss`,
    );
    assert.deepEqual([dismissed.status, dismissed.body], [200, {}]);
    const after = await f.call(alice, "GET", "/api/v2/notifications");
    assert.deepEqual(after.body.notification_groups.map((g: any) => g.type), [
      "follow",
      "favourite",
      "mention",
    ]);
    await f.call(alice, "POST", `/api/v2_alpha/notifications/ungrouped-${ids.mention}/dismiss`);
    const v1After = await f.call(alice, "GET", "/api/v1/notifications");
    assert.deepEqual(v1After.body.map((n: any) => n.type), ["follow", "favourite", "follow"]);
  } finally {
    await instance.close({ destroy: true });
  }
});
