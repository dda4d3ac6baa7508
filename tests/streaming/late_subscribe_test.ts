/**
 * A subscription added to an open WebSocket gets what it missed since the
 * socket opened (masto.js's `streams user:notification`: subscribe frame
 * and HTTP action at once). Made deterministic: a second socket proves the
 * hub handled the notification before the first one subscribes. Never what
 * came before the socket opened; nothing twice.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { WsClient } from "./helpers.ts";

test("WebSocket: a late subscription gets the events since the socket opened", async () => {
  const instance = await startInstance({ listen: true, worker: false });
  const open: WsClient[] = [];
  try {
    const [alice, bob] = await Promise.all([
      createUser(instance, "alice"),
      createUser(instance, "bob"),
    ]);
    const url = `/api/v1/streaming?access_token=${bob.token}`;
    const watcher = await WsClient.open(instance, `${url}&stream=user:notification`);
    open.push(watcher);
    // Before the late socket opens: this one it must never get.
    const early = await postStatus(instance, bob, "Early");
    await ok(instance, alice, "POST", `/api/v1/statuses/${early.id}/favourite`);
    const earlyNote = JSON.parse((await watcher.next("notification")).payload!);
    const late = await WsClient.open(instance, url);
    open.push(late);
    await ok(instance, alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
    // The hub has handled the follow's notification: the watcher got it.
    const followNote = JSON.parse((await watcher.next("notification")).payload!);
    assert.equal(followNote.type, "follow");
    late.send({ type: "subscribe", stream: "user:notification" });
    const frame = await late.next("notification", "user:notification");
    assert.equal(JSON.parse(frame.payload!).id, followNote.id);
    // A later one arrives once, and the early one never did.
    const later = await postStatus(instance, bob, "Later");
    await ok(instance, alice, "POST", `/api/v1/statuses/${later.id}/favourite`);
    const next = JSON.parse((await late.next("notification", "user:notification")).payload!);
    assert.equal(next.type, "favourite");
    assert.equal(next.status.id, later.id);
    await late.sync();
    const seen = late.inbox.items.filter((f) => f.event === "notification")
      .map((f) => JSON.parse(f.payload!).id);
    assert.ok(!seen.includes(earlyNote.id));
    assert.ok(!seen.includes(followNote.id), "the replayed notification came once");

    // The user stream too (the hub keeps, for the replay, only the home
    // feeds of accounts with a socket that lacks it): a followee's post made
    // before the subscribe frame is replayed to it, once.
    await ok(instance, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    const homeLate = await WsClient.open(instance, url);
    const userWs = await WsClient.open(instance, `${url}&stream=user`);
    open.push(homeLate, userWs);
    const post = await postStatus(instance, alice, "Before the subscribe frame");
    // The hub has handled the post: bob's socket on user has it.
    assert.equal(JSON.parse((await userWs.next("update", "user")).payload!).id, post.id);
    homeLate.send({ type: "subscribe", stream: "user" });
    const replayed = await homeLate.next("update", "user");
    assert.equal(JSON.parse(replayed.payload!).id, post.id);
    await homeLate.sync();
    assert.ok(!homeLate.inbox.items.some((f) => f.event === "update"), "replayed once");
  } finally {
    for (const ws of open) await ws.close();
    await instance.close({ destroy: true });
  }
});
