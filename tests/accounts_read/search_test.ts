/**
 * GET /api/v1/accounts/search without the network (resolve has its own test).
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { fixtures, ids } from "./helpers.ts";

test("accounts/search: prefixes of usernames and display-name words, exact handle first", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const me = await f.user("searcher");
    const token = await me.token(["read:accounts"]);
    const annaBig = await f.user("anna_b");
    await f.update(annaBig.accountId, { followersCount: 50 });
    const anna = await f.user("anna");
    const remoteAnna = await f.remote("anna", "remote.example", { followersCount: 100 });
    const byName = await f.user("zed");
    await f.update(byName.accountId, { displayName: "Dr Annabel Lee" });
    const annex = await f.user("annex");
    const other = await f.user("bob");
    const search = async (q: string, extra = "") =>
      await f.get(`/api/v1/accounts/search?q=${encodeURIComponent(q)}${extra}`, token);

    const got = await search("anna");
    assert.equal(got.status, 200);
    // Exact local handle, then the exact username elsewhere, then by followers.
    assert.deepEqual(ids(got.body), [
      anna.accountId,
      remoteAnna,
      annaBig.accountId,
      byName
        .accountId,
    ]);
    assert.equal(got.body[0].acct, "anna");

    assert.deepEqual(ids((await search("@ANNA@remote.example")).body)[0], remoteAnna);
    // Our own domain names local accounts.
    assert.deepEqual(ids((await search(`anna@${instance.domain}`)).body), [
      anna.accountId,
      annaBig.accountId,
    ]);
    assert.deepEqual(ids((await search("anna@rem")).body), [remoteAnna]);
    assert.deepEqual(ids((await search("annab")).body), [byName.accountId]);
    assert.deepEqual(ids((await search("lee")).body), [byName.accountId]);
    assert.deepEqual(ids((await search("ann")).body).length, 5);
    assert.ok(!ids((await search("ann")).body).includes(other.accountId));
    assert.ok(ids((await search("ann")).body).includes(annex.accountId));

    // LIKE wildcards are literal: "_" is common in usernames.
    assert.deepEqual(ids((await search("anna_")).body), [annaBig.accountId]);
    assert.deepEqual(ids((await search("an%")).body), []);
    assert.deepEqual(ids((await search("a\\")).body), []);

    // Blank or missing queries find nothing.
    assert.deepEqual((await search("")).body, []);
    assert.deepEqual((await search("   ")).body, []);
    assert.deepEqual((await search("@")).body, []);
    assert.deepEqual((await f.get("/api/v1/accounts/search", token)).body, []);
    assert.equal((await search("x".repeat(5000))).status, 200);

    // limit and offset page through the same order.
    assert.deepEqual(ids((await search("ann", "&limit=2")).body), [
      remoteAnna,
      annaBig.accountId,
    ]);
    assert.deepEqual(ids((await search("anna", "&limit=2&offset=1")).body), [
      remoteAnna,
      annaBig.accountId,
    ]);
    assert.deepEqual((await search("anna", "&offset=50")).body, []);
    assert.equal((await search("anna", "&offset=abc&limit=zzz")).body.length, 4);
    assert.equal((await search("anna", "&offset=-3")).body.length, 4);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("accounts/search: following=true, blocks, domain blocks (found by full handle), hidden accounts", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const me = await f.user("finder");
    const token = await me.token(["read"]);
    const friend = await f.user("sam_friend");
    const samStranger = await f.user("sam_stranger");
    const blocked = await f.user("sam_blocked");
    const blocker = await f.user("sam_blocker");
    const gone = await f.user("sam_gone");
    const sus = await f.user("sam_sus");
    const unconfirmed = await f.user("sam_new", { confirmed: false });
    const far = await f.remote("sam", "far.example");
    const near = await f.remote("sam_near", "near.example");
    await f.follow(me.accountId, friend.accountId);
    await f.follow(me.accountId, near);
    await f.block(me.accountId, blocked.accountId);
    await f.block(blocker.accountId, me.accountId);
    await f.domainBlock(me.accountId, "far.example");
    await f.update(gone.accountId, { deletedAt: new Date() });
    await f.update(sus.accountId, { suspendedAt: new Date() });

    const found = ids((await f.get("/api/v1/accounts/search?q=sam", token)).body);
    // Followed accounts rank before strangers.
    assert.deepEqual(found, [friend.accountId, near, samStranger.accountId]);
    for (const hidden of [blocked.accountId, blocker.accountId, gone.accountId, sus.accountId]) {
      assert.ok(!found.includes(hidden));
    }
    assert.ok(!found.includes(unconfirmed.accountId));
    assert.ok(!found.includes(far));

    const following = await f.get("/api/v1/accounts/search?q=sam&following=true", token);
    assert.deepEqual(ids(following.body), [friend.accountId, near]);
    const notFollowing = await f.get("/api/v1/accounts/search?q=sam&following=false", token);
    assert.equal(notFollowing.body.length, 3);
    // A full handle finds its account whatever the relationship (as Mastodon's
    // exact match), so a client can find whom to unblock; on both routes.
    const domain = instance.domain;
    for (
      const [q, id] of [
        ["sam_blocked", blocked.accountId],
        ["@sam_blocked", blocked.accountId],
        [`sam_blocked@${domain}`, blocked.accountId],
        [`@SAM_BLOCKER@${domain}`, blocker.accountId],
        ["sam@far.example", far],
        ["@sam@far.example", far],
      ] as const
    ) {
      const query = encodeURIComponent(q);
      const v1 = await f.get(`/api/v1/accounts/search?q=${query}`, token);
      assert.deepEqual(ids(v1.body), [id], q);
      const v2 = await f.get(`/api/v2/search?q=${query}&type=accounts`, token);
      assert.deepEqual(ids(v2.body.accounts), [id], `v2 ${q}`);
    }
    // Only the full handle: a part of it still leaves them out, and
    // following=true keeps only followed accounts.
    assert.deepEqual(ids((await f.get("/api/v1/accounts/search?q=sam_bl", token)).body), []);
    assert.deepEqual(ids((await f.get("/api/v1/accounts/search?q=sam@far", token)).body), []);
    const followedOnly = "/api/v1/accounts/search?q=sam_blocked&following=true";
    assert.deepEqual((await f.get(followedOnly, token)).body, []);
    // Deleted and suspended accounts stay hidden even by their handle.
    assert.deepEqual((await f.get("/api/v1/accounts/search?q=sam_gone", token)).body, []);
    assert.deepEqual((await f.get("/api/v1/accounts/search?q=sam_sus", token)).body, []);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("accounts/search: needs a user token with read:accounts", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const me = await f.user("scoped");
    const path = "/api/v1/accounts/search?q=scoped";
    const none = await f.get(path);
    assert.equal(none.status, 401);
    assert.deepEqual(none.body, { error: "The access token is invalid" });
    const app = await f.get(path, await f.appToken());
    assert.equal(app.status, 422);
    assert.deepEqual(app.body, { error: "This method requires an authenticated user" });
    const wrong = await f.get(path, await me.token(["write"]));
    assert.equal(wrong.status, 403);
    for (const scopes of [["read"], ["read:accounts"]]) {
      const ok = await f.get(path, await me.token(scopes));
      assert.equal(ok.status, 200, scopes.join());
      assert.deepEqual(ids(ok.body), [me.accountId], "you can find yourself (mentions)");
    }
    const bad = await f.get(`${path}&resolve[]=x`, await me.token());
    assert.equal(bad.status, 422);
  } finally {
    await instance.close({ destroy: true });
  }
});
