/**
 * Interactions over HTTP: favourite, reblog, bookmark, mute, pin and their
 * undos, with counters, idempotency, notifications and Mastodon's refusals.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { accounts, conversationMutes, favourites, statuses } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { act, counters, follows, notificationsOf, post } from "./helpers.ts";

test("Favourite and unfavourite: counters, idempotency, notifications, boosts", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const { db } = a.rookery.ctx.database;
    const s = await post(a, alice, "Hello world");

    await t.step("favourite counts once and notifies the author once", async () => {
      const first = await act(a, bob, s, "favourite");
      assert.equal(first.id, s);
      assert.equal(first.favourited, true);
      assert.equal(first.favourites_count, 1);
      const again = await act(a, bob, s, "favourite");
      assert.equal(again.favourites_count, 1);
      assert.equal((await counters(a, s)).favourites, 1);
      assert.equal((await notificationsOf(a, alice, "favourite", bob)).length, 1);
      const [row] = await db.select().from(favourites).where(eq(favourites.statusId, s));
      assert.match(row.uri!, new RegExp(`/users/bob#likes/${row.id}$`));
    });

    await t.step("the author sees the count, not the flag", async () => {
      const seen = await callJson(a, alice, "GET", `/api/v1/statuses/${s}`);
      assert.equal(seen.status, 200);
      assert.equal(seen.body.favourited, false);
      assert.equal(seen.body.favourites_count, 1);
    });

    await t.step("own favourites do not notify", async () => {
      await act(a, alice, s, "favourite");
      assert.equal((await counters(a, s)).favourites, 2);
      assert.equal((await notificationsOf(a, alice, "favourite", alice)).length, 0);
    });

    await t.step(
      "unfavourite takes the count and the notification back, twice is fine",
      async () => {
        const undone = await act(a, bob, s, "unfavourite");
        assert.equal(undone.favourited, false);
        assert.equal(undone.favourites_count, 1);
        assert.equal((await notificationsOf(a, alice, "favourite", bob)).length, 0);
        const again = await act(a, bob, s, "unfavourite");
        assert.equal(again.favourites_count, 1);
        assert.equal((await counters(a, s)).favourites, 1);
      },
    );

    await t.step("favouriting a boost favourites the boosted status", async () => {
      const carol = await createUser(a, "carol");
      const boost = await act(a, carol, s, "reblog");
      const faved = await act(a, bob, boost.id, "favourite");
      assert.equal(faved.id, s);
      assert.equal(faved.favourited, true);
      assert.equal((await counters(a, s)).favourites, 2);
      const undone = await act(a, bob, boost.id, "unfavourite");
      assert.equal(undone.favourited, false);
      assert.equal((await counters(a, s)).favourites, 1);
    });
  } finally {
    await a.close({ destroy: true });
  }
});

test("Reblog and unreblog: wrapper, visibility, refusals, counters, notifications", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const { db } = a.rookery.ctx.database;
    const s = await post(a, alice, "Boost me");
    const statusesCount = async (id: string) =>
      (await db.select().from(accounts).where(eq(accounts.id, id)))[0].statusesCount;
    const before = await statusesCount(bob.id);

    let boostId = "";
    await t.step("reblog answers the boost wrapping the status", async () => {
      const boost = await act(a, bob, s, "reblog");
      boostId = boost.id;
      assert.notEqual(boost.id, s);
      assert.equal(boost.reblog.id, s);
      assert.equal(boost.account.id, bob.id);
      assert.equal(boost.reblogged, true);
      assert.equal(boost.reblog.reblogged, true);
      assert.equal(boost.reblog.reblogs_count, 1);
      assert.equal(boost.visibility, "public");
      assert.equal(boost.content, "");
      assert.match(boost.uri, new RegExp(`/users/bob/statuses/${boost.id}/activity$`));
      assert.equal((await counters(a, s)).reblogs, 1);
      assert.equal(await statusesCount(bob.id), before + 1);
      assert.equal((await notificationsOf(a, alice, "reblog", bob)).length, 1);
    });

    await t.step("reblogging again (also through the boost) returns the same boost", async () => {
      assert.equal((await act(a, bob, s, "reblog")).id, boostId);
      assert.equal((await act(a, bob, boostId, "reblog")).id, boostId);
      assert.equal((await counters(a, s)).reblogs, 1);
      const rows = await db.select().from(statuses).where(
        and(eq(statuses.reblogOfId, s), eq(statuses.accountId, bob.id)),
      );
      assert.equal(rows.length, 1);
      assert.equal((await notificationsOf(a, alice, "reblog", bob)).length, 1);
    });

    await t.step("concurrent reblogs make one boost", async () => {
      const carol = await createUser(a, "carol");
      const results = await Promise.all(
        [1, 2, 3].map(() => callJson(a, carol, "POST", `/api/v1/statuses/${s}/reblog`)),
      );
      assert.deepEqual(results.map((r) => r.status), [200, 200, 200]);
      assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
      assert.equal((await counters(a, s)).reblogs, 2);
      await act(a, carol, s, "unreblog");
    });

    await t.step("visibility: unlisted and private accepted, others refused", async () => {
      const dave = await createUser(a, "dave");
      const bad = await callJson(a, dave, "POST", `/api/v1/statuses/${s}/reblog`, {
        visibility: "sideways",
      });
      assert.equal(bad.status, 422);
      assert.equal(bad.body.error, "Validation failed: Visibility is not included in the list");
      const direct = await callJson(a, dave, "POST", `/api/v1/statuses/${s}/reblog`, {
        visibility: "direct",
      });
      assert.equal(direct.status, 422);
      assert.equal(direct.body.error, "Validation failed: Visibility is reserved");
      const nested = await callJson(a, dave, "POST", `/api/v1/statuses/${s}/reblog`, {
        visibility: { a: 1 },
      });
      assert.equal(nested.status, 422);
      assert.equal((await counters(a, s)).reblogs, 1);
      const unlisted = await act(a, dave, s, "reblog", { visibility: "unlisted" });
      assert.equal(unlisted.visibility, "unlisted");
      await act(a, dave, s, "unreblog");
      const priv = await act(a, dave, s, "reblog", { visibility: "private" });
      assert.equal(priv.visibility, "private");
      await act(a, dave, s, "unreblog");
    });

    await t.step("private: only the author may boost (stays private); direct: nobody", async () => {
      await follows(a, bob, alice);
      const priv = await post(a, alice, "Followers only", { visibility: "private" });
      const refused = await callJson(a, bob, "POST", `/api/v1/statuses/${priv}/reblog`);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, "This action is not allowed");
      const own = await act(a, alice, priv, "reblog", { visibility: "public" });
      assert.equal(own.visibility, "private");
      await act(a, alice, priv, "unreblog");
      const dm = await post(a, alice, "@bob secret", { visibility: "direct" });
      for (const who of [bob, alice]) {
        const res = await callJson(a, who, "POST", `/api/v1/statuses/${dm}/reblog`);
        assert.equal(res.status, 403, who.username);
      }
      assert.equal((await counters(a, dm)).reblogs, 0);
    });

    await t.step("unreblog removes the boost, its count and notification", async () => {
      const undone = await act(a, bob, s, "unreblog");
      assert.equal(undone.id, s);
      assert.equal(undone.reblogged, false);
      assert.equal(undone.reblogs_count, 0);
      assert.equal((await counters(a, s)).reblogs, 0);
      assert.equal(await statusesCount(bob.id), before);
      assert.equal((await db.select().from(statuses).where(eq(statuses.id, boostId))).length, 0);
      assert.equal((await notificationsOf(a, alice, "reblog", bob)).length, 0);
      const again = await act(a, bob, s, "unreblog");
      assert.equal(again.reblogs_count, 0);
    });

    await t.step("unreblog accepts the boost's own id", async () => {
      const boost = await act(a, bob, s, "reblog");
      const undone = await act(a, bob, boost.id, "unreblog");
      assert.equal(undone.id, s);
      assert.equal(undone.reblogged, false);
      assert.equal((await counters(a, s)).reblogs, 0);
    });
  } finally {
    await a.close({ destroy: true });
  }
});

test("Bookmarks and conversation mutes", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const { db } = a.rookery.ctx.database;
    const s = await post(a, alice, "Thread start");

    await t.step("bookmark and unbookmark, each idempotent, no notification", async () => {
      assert.equal((await act(a, bob, s, "bookmark")).bookmarked, true);
      assert.equal((await act(a, bob, s, "bookmark")).bookmarked, true);
      assert.equal((await act(a, alice, s, "bookmark")).bookmarked, true);
      assert.equal((await act(a, bob, s, "unbookmark")).bookmarked, false);
      assert.equal((await act(a, bob, s, "unbookmark")).bookmarked, false);
      const seen = await act(a, alice, s, "bookmark");
      assert.equal(seen.bookmarked, true);
      assert.equal(seen.favourites_count, 0);
    });

    await t.step("mute and unmute the thread, each idempotent", async () => {
      assert.equal((await act(a, alice, s, "mute")).muted, true);
      assert.equal((await act(a, alice, s, "mute")).muted, true);
      const rows = await db.select().from(conversationMutes)
        .where(eq(conversationMutes.accountId, alice.id));
      assert.equal(rows.length, 1);
      // A reply in the thread is muted too.
      const reply = await post(a, bob, "@alice a reply", { inReplyToId: s });
      assert.equal((await act(a, alice, reply, "mute")).muted, true);
      assert.equal((await act(a, alice, reply, "unmute")).muted, false);
      assert.equal((await act(a, alice, s, "unmute")).muted, false);
    });

    await t.step("a muted thread brings no notifications", async () => {
      const thread = await post(a, alice, "Quiet please");
      await act(a, alice, thread, "mute");
      await act(a, bob, thread, "favourite");
      await act(a, bob, thread, "reblog");
      await post(a, bob, "@alice shh", { inReplyToId: thread });
      assert.equal(
        (await notificationsOf(a, alice, "favourite", bob)).filter((n) => n.statusId === thread)
          .length,
        0,
      );
      assert.equal((await notificationsOf(a, alice, "reblog", bob)).length, 0);
      await act(a, alice, thread, "unmute");
      await act(a, bob, thread, "unreblog");
      await act(a, bob, thread, "reblog");
      assert.equal((await notificationsOf(a, alice, "reblog", bob)).length, 1);
    });
  } finally {
    await a.close({ destroy: true });
  }
});

test("Pins: own statuses only, no boosts or direct, limited in number", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(a, "bob");
    const max = a.rookery.ctx.config.limits.maxPinnedStatuses;
    const fail = async (id: string, message: string, who = alice) => {
      const res = await callJson(a, who, "POST", `/api/v1/statuses/${id}/pin`);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error, `Validation failed: ${message}`);
    };

    await t.step("pin and unpin an own status, each idempotent", async () => {
      const s = await post(a, alice, "Pinned");
      assert.equal((await act(a, alice, s, "pin")).pinned, true);
      assert.equal((await act(a, alice, s, "pin")).pinned, true);
      assert.equal((await act(a, alice, s, "unpin")).pinned, false);
      assert.equal((await act(a, alice, s, "unpin")).pinned, false);
    });

    await t.step(
      "private statuses may be pinned; direct ones, boosts, others' may not",
      async () => {
        const priv = await post(a, alice, "Mine, private", { visibility: "private" });
        assert.equal((await act(a, alice, priv, "pin")).pinned, true);
        await act(a, alice, priv, "unpin");
        const dm = await post(a, alice, "@bob psst", { visibility: "direct" });
        await fail(dm, "Posts that are only visible to mentioned users cannot be pinned");
        const theirs = await post(a, bob, "Bob's");
        await fail(theirs, "Someone else's post cannot be pinned");
        const ownBoost = await act(a, alice, theirs, "reblog");
        await fail(ownBoost.id, "A boost cannot be pinned");
        const mine = await post(a, alice, "Boosted by Bob");
        const boost = await act(a, bob, mine, "reblog");
        await fail(boost.id, "A boost cannot be pinned, Someone else's post cannot be pinned");
      },
    );

    await t.step(`at most ${max} pins`, async () => {
      const ids: string[] = [];
      for (let i = 0; i < max + 1; i++) ids.push(await post(a, alice, `Post ${i}`));
      for (const id of ids.slice(0, max)) await act(a, alice, id, "pin");
      await fail(ids[max], "You have already pinned the maximum number of posts");
      // Re-pinning a pinned status at the limit is fine.
      assert.equal((await act(a, alice, ids[0], "pin")).pinned, true);
      await act(a, alice, ids[0], "unpin");
      assert.equal((await act(a, alice, ids[max], "pin")).pinned, true);
      const profile = await callJson(
        a,
        alice,
        "GET",
        `/api/v1/accounts/${alice.id}/statuses?pinned=true`,
      );
      assert.equal(profile.status, 200);
      assert.equal(profile.body.length, max);
    });
  } finally {
    await a.close({ destroy: true });
  }
});
