/**
 * GET /api/v1/accounts/:id, GET /api/v1/accounts?id[]=, GET /api/v1/accounts/lookup
 * and GET /api/v1/accounts/:id/lists.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { assertNotFound, fixtures, ids } from "./helpers.ts";

test("GET /api/v1/accounts/:id: every field of a local and a remote account", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const alice = await f.user("alice");
    await f.update(alice.accountId, {
      displayName: "Alice A.",
      note: "<p>Hello</p>",
      locked: true,
      fields: [{ name: "Site", value: '<a href="https://a.example">a</a>', verified_at: null }],
      followersCount: 3,
      followingCount: 2,
      statusesCount: 7,
      lastStatusAt: new Date("2025-03-04T05:06:07Z"),
    });
    const got = await f.get(`/api/v1/accounts/${alice.accountId}`);
    assert.equal(got.status, 200);
    const a = got.body;
    assert.equal(a.id, alice.accountId);
    assert.equal(a.username, "alice");
    assert.equal(a.acct, "alice");
    assert.equal(a.display_name, "Alice A.");
    assert.equal(a.locked, true);
    assert.equal(a.bot, false);
    assert.equal(a.group, false);
    assert.equal(a.discoverable, true);
    assert.equal(a.indexable, true);
    assert.equal(a.hide_collections, false);
    assert.equal(a.noindex, false);
    assert.match(a.created_at, /^\d{4}-\d\d-\d\dT00:00:00\.000Z$/);
    assert.equal(a.note, "<p>Hello</p>");
    assert.equal(a.url, `${instance.origin}/@alice`);
    assert.equal(a.uri, `${instance.origin}/users/alice`);
    for (const key of ["avatar", "avatar_static", "header", "header_static"]) {
      assert.ok(a[key].startsWith(instance.origin), key);
    }
    assert.equal(a.followers_count, 3);
    assert.equal(a.following_count, 2);
    assert.equal(a.statuses_count, 7);
    assert.equal(a.last_status_at, "2025-03-04");
    assert.deepEqual(a.emojis, []);
    assert.deepEqual(a.roles, []);
    assert.deepEqual(a.fields, [{
      name: "Site",
      value: '<a href="https://a.example">a</a>',
      verified_at: null,
    }]);
    assert.equal("suspended" in a, false);
    assert.equal("moved" in a, false);

    const remoteId = await f.remote("bob", "remote.example", {
      displayName: "Bob",
      actorType: "Service",
    });
    const r = (await f.get(`/api/v1/accounts/${remoteId}`)).body;
    assert.equal(r.id, remoteId);
    assert.equal(r.username, "bob");
    assert.equal(r.acct, "bob@remote.example");
    assert.equal(r.display_name, "Bob");
    assert.equal(r.bot, true);
    assert.equal(r.url, "https://remote.example/@bob");
    assert.equal(r.uri, "https://remote.example/users/bob");
    assert.equal("noindex" in r, false, "noindex is for local accounts only");
  } finally {
    await instance.close({ destroy: true });
  }
});

test("GET /api/v1/accounts/:id: 404 for unknown, malformed, deleted and unapproved ids", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const gone = await f.user("gone");
    await f.update(gone.accountId, { deletedAt: new Date() });
    const unconfirmed = await f.user("unconfirmed", { confirmed: false });
    const pending = await f.user("pending", { approved: false });
    for (
      const id of [
        "1",
        "123456789012345678",
        "99999999999999999999", // past int8
        "9223372036854775808",
        "abc",
        "12abc",
        "-5",
        "%00",
        gone.accountId,
        unconfirmed.accountId,
        pending.accountId,
      ]
    ) {
      assertNotFound(await f.get(`/api/v1/accounts/${id}`), id);
    }
  } finally {
    await instance.close({ destroy: true });
  }
});

test("GET /api/v1/accounts/:id: suspended accounts are shown blanked; blockers still answer", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const viewer = await f.user("viewer");
    const sus = await f.user("sus");
    await f.update(sus.accountId, {
      suspendedAt: new Date(),
      displayName: "Should not show",
      note: "<p>hidden</p>",
      locked: true,
      fields: [{ name: "x", value: "y", verified_at: null }],
      avatarKey: `accounts/avatars/${sus.accountId}/${"a".repeat(32)}.png`,
    });
    const got = await f.get(`/api/v1/accounts/${sus.accountId}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.suspended, true);
    assert.equal(got.body.display_name, "");
    assert.equal(got.body.note, "");
    assert.equal(got.body.locked, false);
    assert.deepEqual(got.body.fields, []);
    assert.ok(got.body.avatar.startsWith(instance.origin), "default avatar");

    // An account that blocks the viewer is still shown to them (as Mastodon does).
    const blocker = await f.user("blocker");
    await f.block(blocker.accountId, viewer.accountId);
    const seen = await f.get(`/api/v1/accounts/${blocker.accountId}`, await viewer.token());
    assert.equal(seen.status, 200);
    assert.equal(seen.body.id, blocker.accountId);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("GET /api/v1/accounts?id[]=: order as asked, unknown skipped, at most 40", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const a = await f.user("a1");
    const b = await f.user("b1");
    const c = await f.remote("c1", "remote.example");
    const gone = await f.user("gone1");
    await f.update(gone.accountId, { deletedAt: new Date() });
    const pending = await f.user("pending1", { approved: false });
    const sus = await f.user("sus1");
    await f.update(sus.accountId, { suspendedAt: new Date() });

    const q = [
      c,
      "1",
      a.accountId,
      "junk",
      gone.accountId,
      b.accountId,
      pending.accountId,
      a
        .accountId,
      sus.accountId,
    ].map((id) => `id[]=${id}`).join("&");
    const got = await f.get(`/api/v1/accounts?${q}`);
    assert.equal(got.status, 200);
    assert.deepEqual(ids(got.body), [c, a.accountId, b.accountId, sus.accountId]);
    assert.equal(got.body[3].suspended, true);

    assert.deepEqual((await f.get("/api/v1/accounts")).body, []);
    assert.deepEqual(ids((await f.get(`/api/v1/accounts?id=${b.accountId}`)).body), [b.accountId]);

    const forty = Array.from({ length: 40 }, (_, i) => `id[]=${i + 1}`).join("&");
    assert.equal((await f.get(`/api/v1/accounts?${forty}`)).status, 200);
    const tooMany = await f.get(`/api/v1/accounts?${forty}&id[]=41`);
    assert.equal(tooMany.status, 422);
    assert.match(tooMany.body.error, /^Validation failed: /);
    const nested = await f.get("/api/v1/accounts?id[x][y]=1");
    assert.equal(nested.status, 422);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("GET /api/v1/accounts/lookup: local and known remote handles, 404 otherwise", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const alice = await f.user("Alice_L");
    const remote = await f.remote("bob", "remote.example");
    const gone = await f.user("gonel");
    await f.update(gone.accountId, { deletedAt: new Date() });
    await f.user("pendingl", { approved: false });
    const lookup = (acct: string) =>
      f.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);

    for (
      const acct of [
        "Alice_L",
        "alice_l",
        "@alice_l",
        `alice_l@${instance.domain}`,
        `@ALICE_L@${instance.domain.toUpperCase()}`,
        `acct:alice_l@${instance.domain}`,
      ]
    ) {
      const got = await lookup(acct);
      assert.equal(got.status, 200, acct);
      assert.equal(got.body.id, alice.accountId, acct);
      assert.equal(got.body.acct, "Alice_L");
    }
    for (const acct of ["bob@remote.example", "@BOB@Remote.Example"]) {
      const got = await lookup(acct);
      assert.equal(got.status, 200, acct);
      assert.equal(got.body.id, remote);
      assert.equal(got.body.acct, "bob@remote.example");
    }
    for (
      const acct of [
        "bob", // no local bob
        "alice_l@remote.example",
        "nobody@unknown.example",
        "gonel",
        "pendingl",
        "a@b@c",
        "@",
        "user@",
        " ",
        "x".repeat(3000),
      ]
    ) {
      assertNotFound(await lookup(acct), acct);
    }
    assertNotFound(await f.get("/api/v1/accounts/lookup"), "no acct");
    const array = await f.get("/api/v1/accounts/lookup?acct[]=x");
    assert.equal(array.status, 422);
    assert.equal(array.body.error, "Validation failed: Acct is invalid");
  } finally {
    await instance.close({ destroy: true });
  }
});

test("GET /api/v1/accounts/:id/lists: [] for a user token with read:lists, 404 for no account", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const viewer = await f.user("listviewer");
    const other = await f.user("listother");
    const token = await viewer.token(["read:lists"]);
    const got = await f.get(`/api/v1/accounts/${other.accountId}/lists`, token);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, []);
    assertNotFound(await f.get("/api/v1/accounts/1/lists", token));
    assert.equal((await f.get(`/api/v1/accounts/${other.accountId}/lists`)).status, 401);
    const wrong = await f.get(
      `/api/v1/accounts/${other.accountId}/lists`,
      await viewer.token(["read:accounts"]),
    );
    assert.equal(wrong.status, 403);
  } finally {
    await instance.close({ destroy: true });
  }
});
