/**
 * A held boost that its status's author rejects is gone for the booster
 * too: their apps, which were shown the boost when it was made, get a
 * `delete` event for it on the user stream (as for a boost taken back).
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { WsClient } from "../streaming/helpers.ts";

test("a rejected held boost: the booster's user stream hears its delete", async () => {
  const instance = await startInstance({ listen: true });
  let ws: WsClient | null = null;
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const post = await postStatus(instance, alice, "boosts need my approval", {
      interaction_policy: {
        can_reblog: { automatic_approval: ["author"], manual_approval: ["public"] },
      },
    });
    const boost = await ok(instance, bob, "POST", `/api/v1/statuses/${post.id}/reblog`);
    ws = await WsClient.open(instance, `/api/v1/streaming?stream=user&access_token=${bob.token}`);
    const [request] = await ok(instance, alice, "GET", "/api/v1/interaction_requests");
    await ok(instance, alice, "POST", `/api/v1/interaction_requests/${request.id}/reject`);
    const frame = await ws.next("delete");
    assert.equal(frame.payload, boost.id);
  } finally {
    await ws?.close();
    await instance.close({ destroy: true });
  }
});
