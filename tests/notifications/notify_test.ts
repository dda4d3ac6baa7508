/**
 * The rules of notify(): who is not notified, group keys, the helpers other
 * commands call, and the follow / follow request notifications wired into
 * the relationship commands.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { fixtures } from "./helpers.ts";
import { newId } from "../../db/ids.ts";
import {
  accountDomainBlocks,
  blocks,
  conversationMutes,
  conversations,
  follows,
  mutes,
  notifications,
} from "../../db/schema/mod.ts";
import { notifyMentions, notifySubscribers } from "../../actors/notifications/notify.ts";

test("notify: self, blocks, mutes, domain blocks, muted threads and remote recipients", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const { db } = f;
    const alice = await f.user("alice");
    const bob = await f.user("bob");
    const dave = await f.user("dave");
    const post = await f.status(alice.id);

    // Self: no notification, except a poll's end for its own author.
    assert.equal(
      await f.notifyNow({
        type: "favourite",
        accountId: alice.id,
        fromAccountId: alice.id,
        statusId: post.id,
      }),
      null,
    );
    assert.ok(
      await f.notifyNow({
        type: "poll",
        accountId: alice.id,
        fromAccountId: alice.id,
        statusId: post.id,
      }),
    );

    // An ordinary favourite: recorded, with Mastodon's group key.
    const favId = await f.notifyNow({
      type: "favourite",
      accountId: alice.id,
      fromAccountId: bob.id,
      statusId: post.id,
    });
    assert.ok(favId);
    const [fav] = await db.select().from(notifications).where(eq(notifications.id, favId!));
    const bucket = Math.floor(Date.now() / 3_600_000);
    assert.ok(
      fav.groupKey === `favourite-${post.id}-${bucket}` ||
        fav.groupKey === `favourite-${post.id}-${bucket - 1}`,
      fav.groupKey ?? "null",
    );

    // Blocked sender.
    await db.insert(blocks).values({ id: newId(), accountId: alice.id, targetAccountId: dave.id });
    assert.equal(
      await f.notifyNow({ type: "follow", accountId: alice.id, fromAccountId: dave.id }),
      null,
    );
    await db.delete(blocks);

    // Mute with notifications hidden: dropped; without: kept; expired: kept.
    await db.insert(mutes).values({
      id: newId(),
      accountId: alice.id,
      targetAccountId: dave.id,
      hideNotifications: true,
    });
    assert.equal(
      await f.notifyNow({ type: "follow", accountId: alice.id, fromAccountId: dave.id }),
      null,
    );
    await db.update(mutes).set({ hideNotifications: false });
    assert.ok(await f.notifyNow({ type: "follow", accountId: alice.id, fromAccountId: dave.id }));
    await db.update(mutes).set({
      hideNotifications: true,
      expiresAt: new Date(Date.now() - 60_000),
    });
    assert.ok(
      await f.notifyNow({
        type: "reblog",
        accountId: alice.id,
        fromAccountId: dave.id,
        statusId: post.id,
      }),
    );
    await db.delete(mutes);

    // Domain block: dropped unless the recipient follows the sender.
    const eve = await f.remote("eve", "blocked.example");
    await db.insert(accountDomainBlocks).values({
      id: newId(),
      accountId: alice.id,
      domain: "Blocked.Example",
    });
    const eveFav = {
      type: "favourite" as const,
      accountId: alice.id,
      fromAccountId: eve,
      statusId: post.id,
    };
    assert.equal(await f.notifyNow(eveFav), null);
    await db.insert(follows).values({ id: newId(), accountId: alice.id, targetAccountId: eve });
    assert.ok(await f.notifyNow(eveFav));

    // A muted thread: mentions (and anything else about it) are dropped.
    const conversation = newId();
    await db.insert(conversations).values({ id: conversation });
    const thread = await f.status(bob.id, { conversationId: conversation }, [alice.id]);
    await db.insert(conversationMutes).values({
      accountId: alice.id,
      conversationId: conversation,
    });
    assert.deepEqual(
      await db.transaction((tx) => notifyMentions(tx, thread, [alice.id])),
      [],
    );
    assert.equal(
      await f.notifyNow({
        type: "favourite",
        accountId: alice.id,
        fromAccountId: bob.id,
        statusId: thread.id,
      }),
      null,
    );
    await db.delete(conversationMutes);
    assert.deepEqual(
      await db.transaction((tx) => notifyMentions(tx, thread, [alice.id])),
      [alice.id],
    );

    // A mention that also mentions someone the recipient blocks is dropped.
    const withBlocked = await f.status(bob.id, {}, [alice.id, dave.id]);
    await db.insert(blocks).values({ id: newId(), accountId: alice.id, targetAccountId: dave.id });
    assert.deepEqual(
      await db.transaction((tx) => notifyMentions(tx, withBlocked, [alice.id, dave.id])),
      [dave.id],
    );
    await db.delete(blocks);

    // Remote recipients never get notifications; a missing status means none either.
    const remoteStatus = await f.status(eve);
    assert.equal(
      await f.notifyNow({
        type: "favourite",
        accountId: eve,
        fromAccountId: bob.id,
        statusId: remoteStatus.id,
      }),
      null,
    );
    assert.equal(
      await f.notifyNow({
        type: "favourite",
        accountId: alice.id,
        fromAccountId: bob.id,
        statusId: newId(),
      }),
      null,
    );
  } finally {
    await instance.close({ destroy: true });
  }
});

test("notify: group keys, subscribers, boosts and follow notifications from the commands", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const { db } = f;
    const alice = await f.user("alice");
    const bob = await f.user("bob");
    const carol = await f.user("carol");
    const post = await f.status(alice.id);

    // Two follows and two reblogs share their groups.
    const k1 = await f.notifyNow({ type: "follow", accountId: alice.id, fromAccountId: bob.id });
    const k2 = await f.notifyNow({ type: "follow", accountId: alice.id, fromAccountId: carol.id });
    const keys = await db.select({ k: notifications.groupKey }).from(notifications)
      .where(eq(notifications.accountId, alice.id));
    assert.ok(k1 && k2);
    assert.equal(new Set(keys.map((r) => r.k)).size, 1);
    assert.match(keys[0].k!, /^follow-\d+$/);

    // A boost passed as the boost row groups and shows under the boosted status.
    const boost = await f.status(bob.id, { reblogOfId: post.id, content: "" });
    const reblogId = await f.notifyNow({
      type: "reblog",
      accountId: alice.id,
      fromAccountId: bob.id,
      statusId: boost.id,
    });
    const [reblog] = await db.select().from(notifications).where(eq(notifications.id, reblogId!));
    assert.match(reblog.groupKey!, new RegExp(`^reblog-${post.id}-\\d+$`));
    const one = await f.call(alice, "GET", `/api/v1/notifications/${reblogId}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.type, "reblog");
    assert.equal(one.body.status.id, post.id);
    assert.equal(one.body.account.id, bob.id);

    // Subscribers: followers with notify=true, not for replies to others or direct messages.
    await db.insert(follows).values([
      { id: newId(), accountId: bob.id, targetAccountId: alice.id, notify: true },
      { id: newId(), accountId: carol.id, targetAccountId: alice.id, notify: false },
    ]);
    const news = await f.status(alice.id);
    assert.deepEqual(await db.transaction((tx) => notifySubscribers(tx, news)), [bob.id]);
    const reply = await f.status(alice.id, { inReplyToAccountId: carol.id });
    assert.deepEqual(await db.transaction((tx) => notifySubscribers(tx, reply)), []);
    const selfReply = await f.status(alice.id, { inReplyToAccountId: alice.id });
    assert.deepEqual(await db.transaction((tx) => notifySubscribers(tx, selfReply)), [bob.id]);
    const dm = await f.status(alice.id, { visibility: "direct" });
    assert.deepEqual(await db.transaction((tx) => notifySubscribers(tx, dm)), []);
    const bobList = await f.call(bob, "GET", "/api/v1/notifications?types[]=status");
    assert.deepEqual(bobList.body.map((n: any) => n.status.id), [selfReply.id, news.id]);

    // The relationship commands notify: follow, follow_request, and retract on answer.
    const dana = await f.user("dana");
    const followed = await f.call(dana, "POST", `/api/v1/accounts/${carol.id}/follow`);
    assert.equal(followed.status, 200);
    let carolList = await f.call(carol, "GET", "/api/v1/notifications");
    assert.deepEqual(carolList.body.map((n: any) => [n.type, n.account.id]), [["follow", dana.id]]);
    // Following again (an options change) does not notify twice; unfollowing takes it back.
    await f.call(dana, "POST", `/api/v1/accounts/${carol.id}/follow`, { notify: true });
    carolList = await f.call(carol, "GET", "/api/v1/notifications");
    assert.equal(carolList.body.length, 1);
    await f.call(dana, "POST", `/api/v1/accounts/${carol.id}/unfollow`);
    carolList = await f.call(carol, "GET", "/api/v1/notifications");
    assert.equal(carolList.body.length, 0);

    await f.lock(carol.id);
    assert.equal((await f.call(dana, "POST", `/api/v1/accounts/${carol.id}/follow`)).status, 200);
    carolList = await f.call(carol, "GET", "/api/v1/notifications");
    assert.deepEqual(carolList.body.map((n: any) => n.type), ["follow_request"]);
    assert.equal(
      (await f.call(carol, "POST", `/api/v1/follow_requests/${dana.id}/authorize`)).status,
      200,
    );
    const left = await db.select().from(notifications).where(and(
      eq(notifications.accountId, carol.id),
      eq(notifications.type, "follow_request"),
    ));
    assert.equal(left.length, 0);
  } finally {
    await instance.close({ destroy: true });
  }
});
