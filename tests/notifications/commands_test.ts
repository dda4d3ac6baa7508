/**
 * Notifications produced by the real commands over the API: mentions from
 * posting, favourites and boosts from the interaction routes (grouped in
 * v2), their undoing, and a muted thread.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { fixtures } from "./helpers.ts";

test("notifications from posting, favouriting, boosting and muting a thread", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const alice = await f.user("alice");
    const bob = await f.user("bob");
    const carol = await f.user("carol");

    const post = await f.call(alice, "POST", "/api/v1/statuses", { status: "Hello" });
    assert.equal(post.status, 200);
    const reply = await f.call(bob, "POST", "/api/v1/statuses", {
      status: "@alice hi there",
      in_reply_to_id: post.body.id,
    });
    assert.equal(reply.status, 200);
    for (const who of [bob, carol]) {
      const res = await f.call(who, "POST", `/api/v1/statuses/${post.body.id}/favourite`);
      assert.equal(res.status, 200);
    }
    assert.equal(
      (await f.call(carol, "POST", `/api/v1/statuses/${post.body.id}/reblog`)).status,
      200,
    );

    const v1 = await f.call(alice, "GET", "/api/v1/notifications");
    assert.deepEqual(v1.body.map((n: any) => [n.type, n.account.id, n.status.id]), [
      ["reblog", carol.id, post.body.id],
      ["favourite", carol.id, post.body.id],
      ["favourite", bob.id, post.body.id],
      ["mention", bob.id, reply.body.id],
    ]);

    const v2 = await f.call(alice, "GET", "/api/v2/notifications");
    assert.deepEqual(
      v2.body.notification_groups.map((g: any) => [g.type, g.notifications_count, g.status_id]),
      [["reblog", 1, post.body.id], ["favourite", 2, post.body.id], [
        "mention",
        1,
        reply.body.id,
      ]],
    );

    // Undoing takes the notification back.
    await f.call(bob, "POST", `/api/v1/statuses/${post.body.id}/unfavourite`);
    await f.call(carol, "POST", `/api/v1/statuses/${post.body.id}/unreblog`);
    const after = await f.call(alice, "GET", "/api/v1/notifications");
    assert.deepEqual(after.body.map((n: any) => [n.type, n.account.id]), [
      ["favourite", carol.id],
      ["mention", bob.id],
    ]);

    // A muted thread: no more mentions from it.
    assert.equal(
      (await f.call(alice, "POST", `/api/v1/statuses/${post.body.id}/mute`)).status,
      200,
    );
    const again = await f.call(bob, "POST", "/api/v1/statuses", {
      status: "@alice still there?",
      in_reply_to_id: reply.body.id,
    });
    assert.equal(again.status, 200);
    const muted = await f.call(alice, "GET", "/api/v1/notifications?types[]=mention");
    assert.deepEqual(muted.body.map((n: any) => n.status.id), [reply.body.id]);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("following with notify=true brings `status` notifications for new posts, not replies to others", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const fan = await f.user("fan");
    const star = await f.user("star");
    const other = await f.user("other");
    const followed = await f.call(fan, "POST", `/api/v1/accounts/${star.id}/follow`, {
      notify: true,
    });
    assert.equal(followed.status, 200);
    assert.equal(followed.body.notifying, true);
    // Another follower without the bell gets nothing.
    await f.call(other, "POST", `/api/v1/accounts/${star.id}/follow`);

    const post = await f.call(star, "POST", "/api/v1/statuses", { status: "New post" });
    const elsewhere = await f.call(other, "POST", "/api/v1/statuses", { status: "Hi" });
    await f.call(star, "POST", "/api/v1/statuses", {
      status: "a reply to someone else",
      in_reply_to_id: elsewhere.body.id,
    });

    const fanSees = await f.call(fan, "GET", "/api/v1/notifications?types[]=status");
    assert.deepEqual(fanSees.body.map((n: any) => [n.type, n.account.id, n.status.id]), [
      ["status", star.id, post.body.id],
    ]);
    const otherSees = await f.call(other, "GET", "/api/v1/notifications?types[]=status");
    assert.deepEqual(otherSees.body, []);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("an edit notifies local boosters with `update` and newly mentioned accounts with `mention`", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const author = await f.user("author");
    const booster = await f.user("booster");
    const newcomer = await f.user("newcomer");
    const post = await f.call(author, "POST", "/api/v1/statuses", { status: "first version" });
    assert.equal(
      (await f.call(booster, "POST", `/api/v1/statuses/${post.body.id}/reblog`)).status,
      200,
    );
    // The author's own boost must not bring a self-notification.
    assert.equal(
      (await f.call(author, "POST", `/api/v1/statuses/${post.body.id}/reblog`)).status,
      200,
    );

    const edited = await f.call(author, "PUT", `/api/v1/statuses/${post.body.id}`, {
      status: "second version, hello @newcomer",
    });
    assert.equal(edited.status, 200);

    const boosterSees = await f.call(booster, "GET", "/api/v1/notifications?types[]=update");
    assert.deepEqual(boosterSees.body.map((n: any) => [n.type, n.account.id, n.status.id]), [
      ["update", author.id, post.body.id],
    ]);
    const newcomerSees = await f.call(newcomer, "GET", "/api/v1/notifications");
    assert.deepEqual(newcomerSees.body.map((n: any) => [n.type, n.status.id]), [
      ["mention", post.body.id],
    ]);
    const authorSees = await f.call(author, "GET", "/api/v1/notifications");
    assert.deepEqual(authorSees.body.filter((n: any) => n.type === "update"), []);
  } finally {
    await instance.close({ destroy: true });
  }
});
