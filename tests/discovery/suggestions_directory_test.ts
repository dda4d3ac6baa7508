/**
 * The profile directory and follow suggestions over HTTP: who is listed or
 * suggested, in what order and from which sources, and everyone who must
 * never be (blocked either way, muted, domain-blocked, opted out of
 * discovery, suspended, already followed or requested, dismissed). Each
 * excluded account is made a candidate first (a friend follows it), so
 * only the exclusion keeps it out.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { call, callJson, ok } from "../fixtures/api.ts";
import { createAccount, createToken, createUser, type TestUser } from "../fixtures/users.ts";
import { links, pathOf } from "../timelines/helpers.ts";
import { newId } from "../../db/ids.ts";
import { accounts, favourites, featuredTags, follows } from "../../db/schema/mod.ts";
import { findOrCreateTags } from "../../db/queries/tags.ts";
import { featureInSuggestions } from "../../actors/discovery/suggestions.ts";
import { hoursAgo, insertPost, insertRemoteAccount } from "./helpers.ts";

async function directory(instance: TestInstance, who: TestUser | null, query = "") {
  const body = await ok<any[]>(instance, who, "GET", `/api/v1/directory${query}`);
  return body.map((a) => a.username as string);
}

test("directory and follow suggestions", async (t) => {
  const server = await startInstance({ worker: false });
  const { db } = server.rookery.ctx.database;
  const setAccount = (id: string, values: Partial<typeof accounts.$inferInsert>) =>
    db.update(accounts).set(values).where(eq(accounts.id, id));
  try {
    const me = await createUser(server, "me");

    await t.step("directory: discoverable accounts by activity or age", async () => {
      const a1 = await createAccount(server, "a1", { account: { lastStatusAt: hoursAgo(1) } });
      await createAccount(server, "a2", { account: { lastStatusAt: hoursAgo(24) } });
      await createAccount(server, "a3");
      await insertRemoteAccount(server, "r1", "remote.example", { lastStatusAt: hoursAgo(2) });
      // Never listed: opted out, not approved, suspended, moved away.
      await createAccount(server, "optedout", {
        account: { discoverable: false, lastStatusAt: new Date() },
      });
      await createAccount(server, "waiting", {
        approved: false,
        account: { lastStatusAt: new Date() },
      });
      await createAccount(server, "banned", {
        account: { suspendedAt: new Date(), lastStatusAt: new Date() },
      });
      await createAccount(server, "moved", {
        account: { movedToAccountId: a1.id, lastStatusAt: new Date() },
      });

      assert.deepEqual(await directory(server, null), ["a1", "r1", "a2", "a3", "me"]);
      assert.deepEqual(await directory(server, null, "?order=active&local=true"), [
        "a1",
        "a2",
        "a3",
        "me",
      ]);
      assert.deepEqual(await directory(server, null, "?order=new"), ["r1", "a3", "a2", "a1", "me"]);
      const page = await callJson<any[]>(server, null, "GET", "/api/v1/directory?limit=2&offset=1");
      assert.deepEqual(page.body.map((a) => a.username), ["r1", "a2"]);
      const l = links(page.headers);
      assert.ok(l.next?.includes("offset=3"), String(l.next));
      assert.ok(l.prev?.includes("offset=0"), String(l.prev));
      const next = await ok<any[]>(server, null, "GET", pathOf(l.next!));
      assert.deepEqual(next.map((a) => a.username), ["a3", "me"]);
      assert.deepEqual(await directory(server, null, "?local=1&limit=1"), ["a1"]);
      // Junk is read leniently, never a 500.
      const junk = await call(server, null, "GET", "/api/v1/directory?order=sideways&offset=-4");
      assert.equal(junk.status, 200);

      // A viewer does not see whom they block, or who blocks them.
      await ok(server, me, "POST", `/api/v1/accounts/${a1.id}/block`);
      assert.deepEqual(await directory(server, me), ["r1", "a2", "a3", "me"]);
      await ok(server, me, "POST", `/api/v1/accounts/${a1.id}/unblock`);
    });

    await t.step("suggestions: sources, order and exclusions", async () => {
      const friend1 = await createUser(server, "friend1");
      const friend2 = await createUser(server, "friend2");
      await ok(server, me, "POST", `/api/v1/accounts/${friend1.id}/follow`);
      await ok(server, me, "POST", `/api/v1/accounts/${friend2.id}/follow`);
      const follow = (from: string, to: string) =>
        db.insert(follows).values({ id: newId(), accountId: from, targetAccountId: to });

      // Followed by both friends: friends of friends, and most followed.
      const popular = await createAccount(server, "popular");
      await follow(friend1.id, popular.id);
      await follow(friend2.id, popular.id);
      // Staff featured.
      const star = await createAccount(server, "star");
      assert.deepEqual(await featureInSuggestions(db, "@star"), {
        handle: "@star",
        changed: true,
      });
      // Features the hashtag a friend features.
      const similar = await createAccount(server, "similar");
      const [birds] = [...(await findOrCreateTags(db, ["birds"])).values()];
      for (const who of [friend1.id, similar.id]) {
        await db.insert(featuredTags).values({ id: newId(), accountId: who, tagId: birds.id });
      }
      // Whose post others favourited this week.
      const liked = await createAccount(server, "liked");
      const post = await insertPost(server, liked.id);
      for (const who of [friend1.id, friend2.id]) {
        await db.insert(favourites).values({ id: newId(), accountId: who, statusId: post });
      }

      // Candidates (friend1 follows each) that must never be suggested.
      const blocked = await createAccount(server, "blocked");
      const blocker = await createUser(server, "blocker");
      const muted = await createAccount(server, "muted");
      const hidden = await createAccount(server, "hidden", { account: { discoverable: false } });
      const banned = await createAccount(server, "banned2", {
        account: { suspendedAt: new Date() },
      });
      const locked = await createAccount(server, "locked", { account: { locked: true } });
      const dismissed = await createAccount(server, "dismissed");
      const far = await insertRemoteAccount(server, "far", "blocked.example");
      for (
        const id of [blocked.id, blocker.id, muted.id, hidden.id, banned.id, locked.id, far, me.id]
      ) await follow(friend1.id, id);
      await follow(friend1.id, dismissed.id);
      await follow(friend2.id, friend1.id); // someone I already follow
      await ok(server, me, "POST", `/api/v1/accounts/${blocked.id}/block`);
      await ok(server, blocker, "POST", `/api/v1/accounts/${me.id}/block`);
      await ok(server, me, "POST", `/api/v1/accounts/${muted.id}/mute`);
      await ok(server, me, "POST", "/api/v1/domain_blocks", { domain: "blocked.example" });
      const requested = await ok(server, me, "POST", `/api/v1/accounts/${locked.id}/follow`);
      assert.equal(requested.requested, true);

      const before = await ok<any[]>(server, me, "GET", "/api/v2/suggestions");
      const byName = new Map(before.map((s) => [s.account.username, s]));
      assert.ok(byName.has("dismissed"), "a candidate until dismissed");
      const dismiss = await callJson(
        server,
        me,
        "DELETE",
        `/api/v1/suggestions/${dismissed.id}`,
      );
      assert.equal(dismiss.status, 200);
      assert.deepEqual(dismiss.body, {});

      const body = await ok<any[]>(server, me, "GET", "/api/v2/suggestions");
      const names = body.map((s) => s.account.username);
      assert.deepEqual(
        [...names].sort(),
        ["liked", "popular", "similar", "star"],
        `suggested: ${names.join(", ")}`,
      );
      // popular comes from two sources, star is featured; both outrank one-source ones.
      assert.deepEqual(names.slice(0, 2).sort(), ["popular", "star"]);
      const get = (name: string) => body.find((s) => s.account.username === name);
      assert.deepEqual(get("popular").sources, ["friends_of_friends", "most_followed"]);
      assert.equal(get("popular").source, "global");
      assert.deepEqual(get("star").sources, ["featured"]);
      assert.equal(get("star").source, "staff");
      assert.deepEqual(get("similar").sources, ["similar_to_recently_followed"]);
      assert.equal(get("similar").source, "past_interactions");
      assert.deepEqual(get("liked").sources, ["most_interactions"]);
      assert.equal(get("liked").account.id, liked.id);

      // v1: the same accounts, as Account entities.
      const v1 = await ok<any[]>(server, me, "GET", "/api/v1/suggestions");
      assert.deepEqual(v1.map((a) => a.username), names);
      assert.equal((await ok<any[]>(server, me, "GET", "/api/v2/suggestions?limit=1")).length, 1);

      // Someone else gets the global and featured ones, not mine.
      const other = await createUser(server, "other");
      const theirs = (await ok<any[]>(server, other, "GET", "/api/v2/suggestions"))
        .map((s) => s.account.username);
      assert.ok(theirs.includes("star") && theirs.includes("popular"), theirs.join(", "));
      assert.ok(!theirs.includes("similar"), "similar profiles follow my graph only");
      assert.ok(!theirs.includes("hidden") && !theirs.includes("banned2"));

      // Opting out takes effect at once.
      await setAccount(star.id, { discoverable: false });
      const after = await ok<any[]>(server, me, "GET", "/api/v2/suggestions");
      assert.ok(!after.some((s) => s.account.username === "star"));
    });

    await t.step("suggestions: tokens, scopes and hostile ids", async () => {
      assert.equal((await call(server, null, "GET", "/api/v2/suggestions")).status, 401);
      assert.equal((await call(server, null, "DELETE", "/api/v1/suggestions/1")).status, 401);
      const writeOnly = await createToken(server, me.userId, ["write"]);
      assert.equal((await call(server, writeOnly, "GET", "/api/v2/suggestions")).status, 403);
      const readAccounts = await createToken(server, me.userId, ["read:accounts"]);
      assert.equal((await call(server, readAccounts, "GET", "/api/v1/suggestions")).status, 200);
      // Dismissing changes state: Mastodon asks for write:accounts, read is refused.
      const readOnly = await createToken(server, me.userId, ["read"]);
      const refused = await callJson(server, readOnly, "DELETE", "/api/v1/suggestions/1");
      assert.equal(refused.status, 403);
      assert.deepEqual(refused.body, { error: "This action is outside the authorized scopes" });
      const writeAccounts = await createToken(server, me.userId, ["write:accounts"]);
      assert.equal(
        (await call(server, writeAccounts, "DELETE", "/api/v1/suggestions/1")).status,
        200,
      );
      for (const id of ["abc", "99999999999999999999", "1", me.id]) {
        const res = await callJson(server, writeOnly, "DELETE", `/api/v1/suggestions/${id}`);
        assert.equal(res.status, 200, id);
        assert.deepEqual(res.body, {});
      }
    });
  } finally {
    await server.close({ destroy: true });
  }
});
