/**
 * Blocking removes what the blocked account brought, as Mastodon's
 * AfterBlockService: its notifications to the blocker (deleted, not
 * hidden), the blocker's conversations it takes part in, and its posts,
 * boosts and mentions of it in the blocker's home and list feeds.
 * Unblocking brings none of them back. A mute clears the feeds too, and,
 * when it hides notifications, the notifications and conversations as well
 * (Mastodon runs the same service then); `notifications=false` keeps them.
 * Other accounts' notifications and feeds are untouched.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { accountConversations, notifications } from "../../db/schema/mod.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";

/** Sets up `who`: follows `others`, a list holding `members`; returns the list id. */
async function followAndList(
  instance: TestInstance,
  who: TestUser,
  others: TestUser[],
  members: TestUser[],
): Promise<string> {
  for (const other of others) {
    await ok(instance, who, "POST", `/api/v1/accounts/${other.id}/follow`);
  }
  const list = await ok(instance, who, "POST", "/api/v1/lists", { title: "Friends" });
  await ok(instance, who, "POST", `/api/v1/lists/${list.id}/accounts`, {
    account_ids: members.map((m) => m.id),
  });
  return list.id;
}

/** What `who` sees of `target`: ids in home, in the list, notifications and conversations. */
async function traces(instance: TestInstance, who: TestUser, listId: string, target: TestUser) {
  const home = await ok(instance, who, "GET", "/api/v1/timelines/home?limit=40");
  const list = await ok(instance, who, "GET", `/api/v1/timelines/list/${listId}?limit=40`);
  const theirs = (s: any) => s.account.id === target.id || s.reblog?.account.id === target.id;
  const seen = (statuses: any[]) =>
    statuses.filter((s) =>
      theirs(s) || (s.reblog ?? s).mentions.some((m: any) => m.id === target.id)
    ).map((s) => s.id);
  const notes = await ok(instance, who, "GET", "/api/v1/notifications?limit=40");
  const conversations = await ok(instance, who, "GET", "/api/v1/conversations");
  const db = instance.rookery.ctx.database.db;
  const rows = await db.select({ id: notifications.id }).from(notifications).where(and(
    eq(notifications.accountId, who.id),
    eq(notifications.fromAccountId, target.id),
  ));
  const convRows = await db.select().from(accountConversations)
    .where(eq(accountConversations.accountId, who.id));
  return {
    home: seen(home),
    list: seen(list),
    /** Their posts and boosts of them only (a mute leaves mentions of them). */
    authored: [...home, ...list].filter(theirs).length,
    notifications: notes.filter((n: any) => n.account.id === target.id).map((n: any) => n.type)
      .sort(),
    notificationRows: rows.length,
    conversations:
      conversations.filter((c: any) => c.accounts.some((a: any) => a.id === target.id)).length,
    conversationRows: convRows.filter((c) => c.participantAccountIds.includes(target.id)).length,
  };
}

/** `from` brings `to` all kinds of things: posts, a boost, a mention, a favourite, a DM. */
async function bringEverything(
  instance: TestInstance,
  from: TestUser,
  to: TestUser,
  third: TestUser,
) {
  const own = await postStatus(instance, to, `A post of ${to.username}`);
  await ok(instance, from, "POST", `/api/v1/statuses/${own.id}/favourite`);
  await ok(instance, from, "POST", `/api/v1/accounts/${to.id}/follow`);
  const post = await postStatus(instance, from, `Hello from ${from.username}`);
  await postStatus(instance, from, `@${to.username} look at this`);
  await postStatus(instance, from, `@${to.username} @${third.username} psst`, {
    visibility: "direct",
  });
  // A post of someone else that mentions them, and a boost of their post.
  await postStatus(instance, third, `Have you met @${from.username}?`);
  await ok(instance, third, "POST", `/api/v1/statuses/${post.id}/reblog`);
}

/** What a blocker keeps of the blocked account: nothing, in feeds, notifications or conversations. */
const NOTHING_LEFT = {
  home: [],
  list: [],
  authored: 0,
  notifications: [],
  notificationRows: 0,
  conversations: 0,
  conversationRows: 0,
};

test("block and mute take away what the account brought; lifting them brings none back", async (t) => {
  const instance = await startInstance();
  try {
    const alice = await createUser(instance, "alice");
    const mallory = await createUser(instance, "mallory");
    const carol = await createUser(instance, "carol");
    const dave = await createUser(instance, "dave");
    const aliceList = await followAndList(instance, alice, [mallory, carol], [mallory, carol]);
    const daveList = await followAndList(instance, dave, [mallory, carol], [mallory, carol]);
    // Carol's own conversation with Alice, which must stay.
    await postStatus(instance, carol, "@alice just us", { visibility: "direct" });

    await t.step("before: everything is there", async () => {
      await bringEverything(instance, mallory, alice, carol);
      await bringEverything(instance, mallory, dave, carol);
      const before = await traces(instance, alice, aliceList, mallory);
      assert.ok(before.home.length >= 4, JSON.stringify(before));
      assert.ok(before.list.length >= 3, JSON.stringify(before));
      assert.deepEqual(before.notifications, ["favourite", "follow", "mention", "mention"]);
      assert.equal(before.conversations, 1);
    });

    await t.step("block: all of it goes, for the blocker only", async () => {
      await ok(instance, alice, "POST", `/api/v1/accounts/${mallory.id}/block`);
      const after = await traces(instance, alice, aliceList, mallory);
      assert.deepEqual(after, NOTHING_LEFT);
      // Carol's conversation and notifications stay.
      const carolSide = await traces(instance, alice, aliceList, carol);
      assert.equal(carolSide.conversations, 1);
      // Dave did not block anyone: his side is untouched.
      const dave1 = await traces(instance, dave, daveList, mallory);
      assert.ok(dave1.home.length >= 4 && dave1.list.length >= 3, JSON.stringify(dave1));
      assert.equal(dave1.notificationRows, 4);
      assert.equal(dave1.conversations, 1);
    });

    await t.step("unblock: none of it comes back", async () => {
      await ok(instance, alice, "POST", `/api/v1/accounts/${mallory.id}/unblock`);
      const after = await traces(instance, alice, aliceList, mallory);
      assert.deepEqual(after, NOTHING_LEFT);
    });

    await t.step("someone else's or an unknown account: 404, nothing removed", async () => {
      const unknown = await instance.request("/api/v1/accounts/99999999999/block", {
        method: "POST",
        headers: { authorization: `Bearer ${dave.token}` },
      });
      assert.equal(unknown.status, 404);
      await unknown.body?.cancel();
      const self = await instance.request(`/api/v1/accounts/${dave.id}/block`, {
        method: "POST",
        headers: { authorization: `Bearer ${dave.token}` },
      });
      assert.notEqual(self.status, 200);
      assert.ok(self.status < 500);
      await self.body?.cancel();
      assert.equal((await traces(instance, dave, daveList, mallory)).notificationRows, 4);
    });

    await t.step("mute with notifications=false: feeds cleared, notifications kept", async () => {
      await ok(instance, dave, "POST", `/api/v1/accounts/${mallory.id}/mute`, {
        notifications: false,
      });
      const muted = await traces(instance, dave, daveList, mallory);
      // Posts and boosts go from home and lists; others' posts mentioning a
      // muted account stay (fan-out lets them in too).
      assert.equal(muted.authored, 0, JSON.stringify(muted));
      assert.ok(muted.home.length > 0, "the mentions of the muted account stay");
      assert.equal(muted.notificationRows, 4);
      assert.equal(muted.conversationRows, 1);
      await ok(instance, dave, "POST", `/api/v1/accounts/${mallory.id}/unmute`);
      // Gone, not hidden: unmuting brings none back.
      assert.equal((await traces(instance, dave, daveList, mallory)).authored, 0);
    });

    await t.step("mute hiding notifications: notifications and conversations go too", async () => {
      await ok(instance, dave, "POST", `/api/v1/accounts/${mallory.id}/mute`);
      await ok(instance, dave, "POST", `/api/v1/accounts/${mallory.id}/unmute`);
      const after = await traces(instance, dave, daveList, mallory);
      assert.deepEqual(after, NOTHING_LEFT);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
