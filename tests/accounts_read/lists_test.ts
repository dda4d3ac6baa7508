/**
 * Followers, following, endorsements, featured tags and familiar followers.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { assertNotFound, fixtures, ids, links } from "./helpers.ts";

test("followers/following: newest follow first, Link by follow ids, 40/80 limits", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const star = await f.user("star");
    // Created first (lowest account id), followed last: order is by follow, not by account.
    const late = await f.remote("late", "remote.example");
    const fans: string[] = [];
    const followIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const fan = await f.user(`fan${i}`);
      fans.push(fan.accountId);
      followIds.push(await f.follow(fan.accountId, star.accountId));
    }
    await f.follow(star.accountId, fans[0]);
    const lateFollow = await f.follow(late, star.accountId);

    const all = await f.get(`/api/v1/accounts/${star.accountId}/followers`);
    assert.equal(all.status, 200);
    assert.deepEqual(ids(all.body), [late, ...[...fans].reverse()]);
    assert.equal(all.body[0].acct, "late@remote.example");
    // A short page has no next link, only prev.
    const allLinks = links(all.headers);
    assert.equal(allLinks.next, undefined);
    assert.equal(allLinks.prev.searchParams.get("since_id"), lateFollow);

    const page1 = await f.get(`/api/v1/accounts/${star.accountId}/followers?limit=2`);
    assert.deepEqual(ids(page1.body), [late, fans[4]]);
    const l1 = links(page1.headers);
    assert.equal(l1.next.origin, instance.origin);
    assert.equal(l1.next.pathname, `/api/v1/accounts/${star.accountId}/followers`);
    assert.equal(l1.next.searchParams.get("max_id"), followIds[4]);
    assert.equal(l1.next.searchParams.get("limit"), "2");
    assert.equal(l1.prev.searchParams.get("since_id"), lateFollow);

    const page2 = await f.get(l1.next.pathname + l1.next.search);
    assert.deepEqual(ids(page2.body), [fans[3], fans[2]]);
    const l2 = links(page2.headers);
    assert.equal(l2.next.searchParams.get("max_id"), followIds[2]);
    const page3 = await f.get(l2.next.pathname + l2.next.search);
    assert.deepEqual(ids(page3.body), [fans[1], fans[0]]);
    const page4 = await f.get(
      links(page3.headers).next.pathname + links(page3.headers).next.search,
    );
    assert.deepEqual(page4.body, []);
    assert.equal(page4.headers.get("link"), null);

    // Going back: since_id gives the newest above the cursor; min_id the ones right above it.
    const since = await f.get(
      `/api/v1/accounts/${star.accountId}/followers?limit=2&since_id=${followIds[1]}`,
    );
    assert.deepEqual(ids(since.body), [late, fans[4]]);
    const min = await f.get(
      `/api/v1/accounts/${star.accountId}/followers?limit=2&min_id=${followIds[1]}`,
    );
    assert.deepEqual(ids(min.body), [fans[3], fans[2]]);
    // Junk cursors are ignored; limits clamp.
    const junk = await f.get(
      `/api/v1/accounts/${star.accountId}/followers?max_id=abc&limit=-1`,
    );
    assert.deepEqual(ids(junk.body), [late]);
    assert.equal(
      (await f.get(`/api/v1/accounts/${star.accountId}/followers?limit=1000`)).body.length,
      6,
    );

    const following = await f.get(`/api/v1/accounts/${star.accountId}/following`);
    assert.deepEqual(ids(following.body), [fans[0]]);
    const fanFollowing = await f.get(`/api/v1/accounts/${fans[2]}/following`);
    assert.deepEqual(ids(fanFollowing.body), [star.accountId]);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("followers/following: default 40, at most 80 per page", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const star = await f.user("bigstar");
    for (let i = 0; i < 85; i++) {
      await f.follow(await f.remote(`r${i}`, "many.example"), star.accountId);
    }
    const first = await f.get(`/api/v1/accounts/${star.accountId}/followers`);
    assert.equal(first.body.length, 40);
    assert.ok(links(first.headers).next, "full page: next link");
    const max = await f.get(`/api/v1/accounts/${star.accountId}/followers?limit=200`);
    assert.equal(max.body.length, 80);
    const rest = links(max.headers).next;
    const last = await f.get(rest.pathname + rest.search);
    assert.equal(last.body.length, 5);
    assert.equal(links(last.headers).next, undefined);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("followers/following: hide_collections, suspended and deleted owners, 404s", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const owner = await f.user("hider");
    const fan = await f.user("hfan");
    const other = await f.user("hother");
    await f.follow(fan.accountId, owner.accountId);
    await f.follow(owner.accountId, fan.accountId);
    await f.update(owner.accountId, { hideCollections: true });
    for (const kind of ["followers", "following"]) {
      const path = `/api/v1/accounts/${owner.accountId}/${kind}`;
      const anon = await f.get(path);
      assert.equal(anon.status, 200);
      assert.deepEqual(anon.body, [], `${kind} hidden from anonymous`);
      assert.equal(anon.headers.get("link"), null);
      assert.deepEqual((await f.get(path, await other.token())).body, [], `${kind} hidden`);
      assert.deepEqual(
        ids((await f.get(path, await owner.token())).body),
        [fan.accountId],
        `owner sees own ${kind}`,
      );
    }

    // Suspended owners list nothing; their followers do not list them either.
    const sus = await f.user("susowner");
    await f.follow(fan.accountId, sus.accountId);
    await f.follow(sus.accountId, fan.accountId);
    await f.update(sus.accountId, { suspendedAt: new Date() });
    assert.deepEqual((await f.get(`/api/v1/accounts/${sus.accountId}/followers`)).body, []);
    assert.deepEqual((await f.get(`/api/v1/accounts/${sus.accountId}/following`)).body, []);
    assert.deepEqual(
      ids((await f.get(`/api/v1/accounts/${fan.accountId}/followers`)).body),
      [owner.accountId],
    );

    const gone = await f.user("goneowner");
    await f.update(gone.accountId, { deletedAt: new Date() });
    assertNotFound(await f.get(`/api/v1/accounts/${gone.accountId}/followers`));
    assertNotFound(await f.get(`/api/v1/accounts/${gone.accountId}/following`));
    assertNotFound(await f.get("/api/v1/accounts/1/followers"));
    assertNotFound(await f.get("/api/v1/accounts/x1/following"));
    assertNotFound(await f.get("/api/v1/accounts/99999999999999999999/followers"));
  } finally {
    await instance.close({ destroy: true });
  }
});

test("followers/following: blocks both ways, domain blocks and mutes of the viewer", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const viewer = await f.user("viewer");
    const target = await f.user("target");
    const blocked = await f.user("blocked");
    const blocker = await f.user("blockerx");
    const muted = await f.user("muted");
    const expired = await f.user("expiredmute");
    const plain = await f.user("plain");
    const onBadDomain = await f.remote("bad", "Bad.Example");
    for (const a of [blocked, blocker, muted, expired, plain]) {
      await f.follow(a.accountId, target.accountId);
    }
    await f.follow(onBadDomain, target.accountId);
    await f.block(viewer.accountId, blocked.accountId);
    await f.block(blocker.accountId, viewer.accountId);
    await f.mute(viewer.accountId, muted.accountId);
    await f.mute(viewer.accountId, expired.accountId, new Date(Date.now() - 60_000));
    await f.domainBlock(viewer.accountId, "bad.example");

    const path = `/api/v1/accounts/${target.accountId}/followers`;
    const anon = await f.get(path);
    assert.equal(anon.body.length, 6, "anonymous viewers see everyone");
    const seen = await f.get(path, await viewer.token());
    assert.deepEqual(ids(seen.body), [plain.accountId, expired.accountId]);
    // App tokens have no viewer: nothing is filtered.
    assert.equal((await f.get(path, await f.appToken())).body.length, 6);

    // An owner who blocks the viewer shows them empty lists.
    await f.block(target.accountId, viewer.accountId);
    assert.deepEqual((await f.get(path, await viewer.token())).body, []);
    assert.deepEqual(
      (await f.get(`/api/v1/accounts/${target.accountId}/following`, await viewer.token())).body,
      [],
    );
    // The owner's own view is unaffected by whom the owner blocks among strangers.
    assert.equal((await f.get(path, await target.token())).body.length, 6);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("endorsements: public, paged by account id, filtered; featured tags", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const owner = await f.user("endorser");
    const viewer = await f.user("eviewer");
    const endorsed: string[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await f.user(`endorsed${i}`);
      endorsed.push(a.accountId);
      await f.endorse(owner.accountId, a.accountId);
    }
    const susp = await f.user("endorsedsus");
    await f.endorse(owner.accountId, susp.accountId);
    await f.update(susp.accountId, { suspendedAt: new Date() });

    const path = `/api/v1/accounts/${owner.accountId}/endorsements`;
    const all = await f.get(path);
    assert.equal(all.status, 200);
    assert.deepEqual(ids(all.body), [...endorsed].reverse());
    const page = await f.get(`${path}?limit=2`);
    assert.deepEqual(ids(page.body), [endorsed[2], endorsed[1]]);
    const l = links(page.headers);
    assert.equal(l.next.searchParams.get("max_id"), endorsed[1]);
    assert.equal(l.prev.searchParams.get("since_id"), endorsed[2]);
    assert.deepEqual(ids((await f.get(l.next.pathname + l.next.search)).body), [endorsed[0]]);

    await f.block(viewer.accountId, endorsed[1]);
    assert.deepEqual(
      ids((await f.get(path, await viewer.token())).body),
      [endorsed[2], endorsed[0]],
    );
    assert.equal((await f.get(path, await viewer.token(["write"]))).status, 403);
    assertNotFound(await f.get("/api/v1/accounts/1/endorsements"));

    // Featured tags: Mastodon's serializer shapes (string count, date only).
    const tagId = await f.featureTag(
      owner.accountId,
      "Rookery",
      12,
      new Date("2025-06-07T08:00:00Z"),
    );
    const quietId = await f.featureTag(owner.accountId, "quiet");
    const tags = await f.get(`/api/v1/accounts/${owner.accountId}/featured_tags`);
    assert.equal(tags.status, 200);
    assert.deepEqual(tags.body, [
      {
        id: tagId,
        name: "Rookery",
        url: `${instance.origin}/@endorser/tagged/Rookery`,
        statuses_count: "12",
        last_status_at: "2025-06-07",
      },
      {
        id: quietId,
        name: "quiet",
        url: `${instance.origin}/@endorser/tagged/quiet`,
        statuses_count: "0",
        last_status_at: null,
      },
    ]);
    const remote = await f.remote("tagger", "remote.example");
    await f.featureTag(remote, "Fedi");
    const remoteTags = await f.get(`/api/v1/accounts/${remote}/featured_tags`);
    assert.equal(remoteTags.body[0].url, `${instance.origin}/@tagger@remote.example/tagged/Fedi`);
    assert.deepEqual((await f.get(`/api/v1/accounts/${viewer.accountId}/featured_tags`)).body, []);
    await f.update(owner.accountId, { suspendedAt: new Date() });
    assert.deepEqual((await f.get(`/api/v1/accounts/${owner.accountId}/featured_tags`)).body, []);
    assert.deepEqual((await f.get(path)).body, []);
    assertNotFound(await f.get("/api/v1/accounts/1/featured_tags"));
  } finally {
    await instance.close({ destroy: true });
  }
});

test("familiar_followers: the viewer's followings that follow each account", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const me = await f.user("me");
    const friend1 = await f.user("friend1");
    const friend2 = await f.user("friend2");
    const shy = await f.user("shyfriend");
    const stranger = await f.user("stranger");
    const t1 = await f.user("t1");
    const t2 = await f.user("t2");
    const hiddenTarget = await f.user("t3hidden");
    const sus = await f.user("t4sus");
    for (const fr of [friend1, friend2, shy]) await f.follow(me.accountId, fr.accountId);
    await f.update(shy.accountId, { hideCollections: true });
    await f.follow(friend1.accountId, t1.accountId);
    await f.follow(friend2.accountId, t1.accountId);
    await f.follow(shy.accountId, t1.accountId);
    await f.follow(stranger.accountId, t1.accountId);
    await f.follow(friend2.accountId, hiddenTarget.accountId);
    await f.update(hiddenTarget.accountId, { hideCollections: true });
    await f.follow(friend1.accountId, sus.accountId);
    await f.update(sus.accountId, { suspendedAt: new Date() });

    const token = await me.token(["read:follows"]);
    const q = [t1.accountId, t2.accountId, "1", "junk", hiddenTarget.accountId, sus.accountId]
      .map((id) => `id[]=${id}`).join("&");
    const got = await f.get(`/api/v1/accounts/familiar_followers?${q}`, token);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.map((e: any) => ({ id: e.id, accounts: ids(e.accounts) })), [
      { id: t1.accountId, accounts: [friend2.accountId, friend1.accountId] },
      { id: t2.accountId, accounts: [] },
      { id: hiddenTarget.accountId, accounts: [] },
    ]);
    assert.equal(got.body[0].accounts[0].acct, "friend2", "full Account entities");

    // A friend the viewer has since blocked is left out.
    await f.block(me.accountId, friend2.accountId);
    const after = await f.get(`/api/v1/accounts/familiar_followers?id[]=${t1.accountId}`, token);
    assert.deepEqual(ids(after.body[0].accounts), [friend1.accountId]);
    assert.deepEqual((await f.get("/api/v1/accounts/familiar_followers", token)).body, []);

    const tooMany = Array.from({ length: 41 }, (_, i) => `id[]=${i + 1}`).join("&");
    assert.equal(
      (await f.get(`/api/v1/accounts/familiar_followers?${tooMany}`, token)).status,
      422,
    );
    assert.equal((await f.get(`/api/v1/accounts/familiar_followers?id[]=1`)).status, 401);
    assert.equal(
      (await f.get(`/api/v1/accounts/familiar_followers?id[]=1`, await f.appToken())).status,
      422,
    );
  } finally {
    await instance.close({ destroy: true });
  }
});
