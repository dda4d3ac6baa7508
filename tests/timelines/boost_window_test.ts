/**
 * Repeated boosts in home (Mastodon 4.7): a boost of a post already among
 * the newest 80 entries of the home feed is left out; once 80 newer entries
 * have come, another boost of it shows again.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

test("home: a boost of a post seen in the newest 80 entries is left out, not older", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const [alice, bob, carol, dave] = await Promise.all(
      ["alice", "bob", "carol", "dave"].map((n) => createUser(instance, n)),
    );
    for (const who of [alice, carol, dave]) {
      await ok(instance, bob, "POST", `/api/v1/accounts/${who.id}/follow`);
    }
    const home = async () =>
      (await ok<any[]>(instance, bob, "GET", "/api/v1/timelines/home?limit=40")).map((s) => s.id);
    const post = await postStatus(instance, alice, "Worth boosting");
    const early = await ok(instance, carol, "POST", `/api/v1/statuses/${post.id}/reblog`);
    assert.ok(!(await home()).includes(early.id), "the post is on top: its boost is left out");
    for (let i = 0; i < 80; i++) await postStatus(instance, alice, `Filler ${i}`);
    const late = await ok(instance, dave, "POST", `/api/v1/statuses/${post.id}/reblog`);
    assert.equal((await home())[0], late.id, "80 entries later, a boost shows again");
  } finally {
    await instance.close({ destroy: true });
  }
});
