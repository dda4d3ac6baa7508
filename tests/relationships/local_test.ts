/** Relationships between local accounts, through the API. */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { mutes } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { call, callJson, relationship } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { accountRow } from "./helpers.ts";

test("follow, unfollow and the Relationship shape; counters follow", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const res = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/follow`, {
      reblogs: false,
      notify: true,
      languages: ["en", "de"],
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      id: bob.id,
      following: true,
      showing_reblogs: false,
      notifying: true,
      languages: ["en", "de"],
      followed_by: false,
      blocking: false,
      blocked_by: false,
      muting: false,
      muting_notifications: false,
      muting_expires_at: null,
      requested: false,
      requested_by: false,
      domain_blocking: false,
      endorsed: false,
      note: "",
    });
    assert.equal((await accountRow(a, alice.id)).followingCount, 1);
    assert.equal((await accountRow(a, bob.id)).followersCount, 1);

    // Following again updates the options and does not count twice.
    const again = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/follow`, {
      reblogs: true,
    });
    assert.equal(again.body.showing_reblogs, true);
    assert.equal(again.body.notifying, true);
    assert.equal((await accountRow(a, bob.id)).followersCount, 1);

    const fromBob = await relationship(a, bob, alice.id);
    assert.equal(fromBob.followed_by, true);
    assert.equal(fromBob.following, false);

    const un = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/unfollow`);
    assert.equal(un.status, 200);
    assert.equal(un.body.following, false);
    assert.equal((await accountRow(a, alice.id)).followingCount, 0);
    assert.equal((await accountRow(a, bob.id)).followersCount, 0);
    // Unfollowing again is fine.
    assert.equal((await call(a, alice, "POST", `/api/v1/accounts/${bob.id}/unfollow`)).status, 200);

    // Following oneself: Mastodon's 403.
    const self = await callJson(a, alice, "POST", `/api/v1/accounts/${alice.id}/follow`);
    assert.equal(self.status, 403);
    assert.equal(self.body.error, "Following your own account is not allowed");

    const badLang = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/follow`, {
      languages: ["not a language"],
    });
    assert.equal(badLang.status, 422);
    assert.equal((await accountRow(a, bob.id)).followersCount, 0, "no half write");

    // remove_from_followers
    await call(a, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    const removed = await callJson(
      a,
      alice,
      "POST",
      `/api/v1/accounts/${bob.id}/remove_from_followers`,
    );
    assert.equal(removed.body.followed_by, false);
    assert.equal((await accountRow(a, bob.id)).followingCount, 0);
    assert.equal((await accountRow(a, alice.id)).followersCount, 0);
  } finally {
    await a.close({ destroy: true });
  }
});

test("locked account: request, list, authorize and reject; 404 when none", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const carol = await createUser(a, "carol");
    const lena = await createUser(a, "lena", { account: { locked: true } });
    const req = await callJson(a, alice, "POST", `/api/v1/accounts/${lena.id}/follow`);
    assert.equal(req.status, 200);
    assert.equal(req.body.following, false);
    assert.equal(req.body.requested, true);
    assert.equal((await accountRow(a, lena.id)).followersCount, 0);
    await call(a, carol, "POST", `/api/v1/accounts/${lena.id}/follow`);

    const list = await callJson(a, lena, "GET", "/api/v1/follow_requests");
    assert.deepEqual(list.body.map((x: any) => x.id), [carol.id, alice.id]);
    assert.equal((await relationship(a, lena, alice.id)).requested_by, true);

    const ok = await callJson(a, lena, "POST", `/api/v1/follow_requests/${alice.id}/authorize`);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.followed_by, true);
    assert.equal(ok.body.requested_by, false);
    assert.equal((await relationship(a, alice, lena.id)).following, true);
    assert.equal((await accountRow(a, lena.id)).followersCount, 1);
    assert.equal((await accountRow(a, alice.id)).followingCount, 1);

    const no = await callJson(a, lena, "POST", `/api/v1/follow_requests/${carol.id}/reject`);
    assert.equal(no.status, 200);
    assert.equal(no.body.followed_by, false);
    assert.equal(no.body.requested_by, false);
    assert.equal((await relationship(a, carol, lena.id)).requested, false);

    for (const action of ["authorize", "reject"]) {
      const none = await callJson(a, lena, "POST", `/api/v1/follow_requests/${carol.id}/${action}`);
      assert.equal(none.status, 404);
      assert.equal(none.body.error, "Record not found");
    }
    assert.equal(
      (await call(a, lena, "POST", `/api/v1/follow_requests/notanid/authorize`)).status,
      404,
    );

    // Unfollow withdraws a pending request.
    await call(a, carol, "POST", `/api/v1/accounts/${lena.id}/follow`);
    await call(a, carol, "POST", `/api/v1/accounts/${lena.id}/unfollow`);
    assert.deepEqual((await callJson(a, lena, "GET", "/api/v1/follow_requests")).body, []);
  } finally {
    await a.close({ destroy: true });
  }
});

test("block severs follows both ways and forbids following; unblock", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    await call(a, alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
    await call(a, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    await call(a, alice, "POST", `/api/v1/accounts/${bob.id}/endorse`);
    const blocked = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/block`);
    assert.equal(blocked.status, 200);
    assert.equal(blocked.body.blocking, true);
    assert.equal(blocked.body.following, false);
    assert.equal(blocked.body.followed_by, false);
    assert.equal(blocked.body.endorsed, false);
    for (const id of [alice.id, bob.id]) {
      const row = await accountRow(a, id);
      assert.equal(row.followersCount, 0);
      assert.equal(row.followingCount, 0);
    }
    assert.equal((await relationship(a, bob, alice.id)).blocked_by, true);
    const refused = await callJson(a, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, "This action is not allowed");
    assert.equal(
      (await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/follow`)).status,
      403,
    );

    const list = await callJson(a, alice, "GET", "/api/v1/blocks");
    assert.deepEqual(list.body.map((x: any) => x.id), [bob.id]);

    const un = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/unblock`);
    assert.equal(un.body.blocking, false);
    assert.equal(
      (await callJson(a, bob, "POST", `/api/v1/accounts/${alice.id}/follow`)).status,
      200,
    );
    assert.equal(
      (await callJson(a, alice, "POST", `/api/v1/accounts/${alice.id}/block`)).status,
      422,
    );
  } finally {
    await a.close({ destroy: true });
  }
});

test("mute with notifications and duration; expired mutes count as absent", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const carol = await createUser(a, "carol");
    const m = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/mute`, {
      notifications: false,
    });
    assert.equal(m.body.muting, true);
    assert.equal(m.body.muting_notifications, false);
    const timed = await callJson(a, alice, "POST", `/api/v1/accounts/${carol.id}/mute`, {
      duration: 3600,
    });
    assert.equal(timed.body.muting_notifications, true);
    // Mastodon 4.6: when the timed mute ends; null for a mute for good.
    assert.ok(Math.abs(Date.parse(timed.body.muting_expires_at) - Date.now() - 3_600_000) < 60_000);
    assert.equal(m.body.muting_expires_at, null);
    const list = await callJson(a, alice, "GET", "/api/v1/mutes");
    assert.deepEqual(list.body.map((x: any) => x.id), [carol.id, bob.id]);
    const expires = Date.parse(list.body[0].mute_expires_at);
    assert.ok(Math.abs(expires - (Date.now() + 3600_000)) < 60_000);
    assert.equal(list.body[1].mute_expires_at, null);

    // Let carol's mute run out (moved into the past rather than waited for).
    const { db } = a.rookery.ctx.database;
    await db.update(mutes).set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(mutes.targetAccountId, carol.id));
    assert.equal((await relationship(a, alice, carol.id)).muting, false);
    const after = await callJson(a, alice, "GET", "/api/v1/mutes");
    assert.deepEqual(after.body.map((x: any) => x.id), [bob.id]);

    const un = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/unmute`);
    assert.equal(un.body.muting, false);
    assert.equal(
      (await call(a, alice, "POST", `/api/v1/accounts/${bob.id}/mute`, { duration: -5 })).status,
      422,
    );
  } finally {
    await a.close({ destroy: true });
  }
});

test("endorse only followed accounts (pin aliases); notes up to 2000 characters", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const notFollowing = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/endorse`);
    assert.equal(notFollowing.status, 422);
    assert.match(notFollowing.body.error, /^Validation failed: You must be already following/);
    await call(a, alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
    const pinned = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/pin`);
    assert.equal(pinned.body.endorsed, true);
    const list = await callJson(a, alice, "GET", "/api/v1/endorsements");
    assert.deepEqual(list.body.map((x: any) => x.id), [bob.id]);
    const unpinned = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/unendorse`);
    assert.equal(unpinned.body.endorsed, false);

    const note = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/note`, {
      comment: "Met at the conference",
    });
    assert.equal(note.body.note, "Met at the conference");
    assert.equal((await relationship(a, bob, alice.id)).note, "", "notes are private");
    const huge = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/note`, {
      comment: "x".repeat(2001),
    });
    assert.equal(huge.status, 422);
    assert.equal(
      huge.body.error,
      "Validation failed: Comment is too long (maximum is 2000 characters)",
    );
    assert.equal((await relationship(a, alice, bob.id)).note, "Met at the conference");
    const cleared = await callJson(a, alice, "POST", `/api/v1/accounts/${bob.id}/note`, {
      comment: "",
    });
    assert.equal(cleared.body.note, "");
  } finally {
    await a.close({ destroy: true });
  }
});

test("hostile ids, scopes, and relationships for many ids", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const readOnly = await createUser(a, "reader", { scopes: ["read"] });
    for (const id of ["0", "12345678901234", "abc", "9".repeat(30), "-1"]) {
      for (const action of ["follow", "block", "mute", "note", "endorse", "unfollow"]) {
        const res = await callJson(a, alice, "POST", `/api/v1/accounts/${id}/${action}`);
        assert.equal(res.status, 404, `${action} ${id}`);
        assert.equal(res.body.error, "Record not found");
      }
    }
    assert.equal((await call(a, null, "POST", `/api/v1/accounts/${bob.id}/follow`)).status, 401);
    assert.equal(
      (await call(a, readOnly, "POST", `/api/v1/accounts/${bob.id}/follow`)).status,
      403,
    );
    assert.equal((await call(a, readOnly, "GET", "/api/v1/blocks")).status, 200);

    await call(a, alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
    const ids = [bob.id, "nonsense", "123", alice.id, bob.id];
    const query = ids.map((id) => `id[]=${id}`).join("&");
    const rels = await callJson(a, alice, "GET", `/api/v1/accounts/relationships?${query}`);
    assert.equal(rels.status, 200);
    assert.deepEqual(rels.body.map((r: any) => r.id), [bob.id, alice.id, bob.id]);
    assert.equal(rels.body[0].following, true);
    assert.equal(rels.body[1].following, false);
    assert.deepEqual(
      (await callJson(a, alice, "GET", "/api/v1/accounts/relationships")).body,
      [],
    );
  } finally {
    await a.close({ destroy: true });
  }
});

test("pagination of follow requests, blocks and domain blocks with Link headers", async () => {
  const a = await startInstance();
  try {
    const lena = await createUser(a, "lena", { account: { locked: true } });
    const others = [];
    for (let i = 0; i < 5; i++) others.push(await createUser(a, `user${i}`));
    for (const u of others) await call(a, u, "POST", `/api/v1/accounts/${lena.id}/follow`);
    for (const u of others) await call(a, lena, "POST", `/api/v1/accounts/${u.id}/block`);

    for (const path of ["/api/v1/blocks"]) {
      const first = await callJson(a, lena, "GET", `${path}?limit=2`);
      assert.deepEqual(first.body.map((x: any) => x.id), [others[4].id, others[3].id]);
      const link = first.headers.get("link")!;
      assert.match(link, /rel="next"/);
      assert.match(link, /since_id=\d+>; rel="prev"/);
      const next = /<([^>]+)>; rel="next"/.exec(link)![1];
      assert.ok(next.startsWith(a.origin));
      const second = await callJson(a, lena, "GET", next.slice(a.origin.length));
      assert.deepEqual(second.body.map((x: any) => x.id), [others[2].id, others[1].id]);
      const third = await callJson(
        a,
        lena,
        "GET",
        /<([^>]+)>; rel="next"/.exec(second.headers.get("link")!)![1].slice(a.origin.length),
      );
      assert.deepEqual(third.body.map((x: any) => x.id), [others[0].id]);
      assert.doesNotMatch(third.headers.get("link") ?? "", /rel="next"/);
      const prev = /<([^>]+)>; rel="prev"/.exec(second.headers.get("link")!)![1];
      const back = await callJson(a, lena, "GET", prev.slice(a.origin.length));
      assert.deepEqual(back.body.map((x: any) => x.id), [others[4].id, others[3].id]);
    }
    // The blocks removed the requests.
    assert.deepEqual((await callJson(a, lena, "GET", "/api/v1/follow_requests")).body, []);

    for (const d of ["Example.COM", "b.example", "xn--bcher-kva.example", "bücher.example"]) {
      const res = await callJson(a, lena, "POST", "/api/v1/domain_blocks", { domain: d });
      assert.equal(res.status, 200, d);
    }
    const domains = await callJson(a, lena, "GET", "/api/v1/domain_blocks?limit=2");
    assert.deepEqual(domains.body, ["xn--bcher-kva.example", "b.example"]);
    assert.match(domains.headers.get("link")!, /max_id=/);
    const rest = await callJson(a, lena, "GET", "/api/v1/domain_blocks");
    assert.deepEqual(rest.body, ["xn--bcher-kva.example", "b.example", "example.com"]);
    for (const bad of ["", "not a domain", "https://x.example/path", "a..b", "-x.example"]) {
      const res = await callJson(a, lena, "POST", "/api/v1/domain_blocks", { domain: bad });
      assert.equal(res.status, 422, JSON.stringify(bad));
      assert.match(res.body.error, /^Validation failed: Domain/);
    }
    const del = await call(a, lena, "DELETE", "/api/v1/domain_blocks?domain=EXAMPLE.com");
    assert.equal(del.status, 200);
    assert.deepEqual(
      (await callJson(a, lena, "GET", "/api/v1/domain_blocks")).body,
      ["xn--bcher-kva.example", "b.example"],
    );
  } finally {
    await a.close({ destroy: true });
  }
});
