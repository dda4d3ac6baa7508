/**
 * The multiplexed WebSocket (GET /api/v1/streaming) with a real client:
 * the user stream carries what enters the home feed, rendered as the REST
 * API renders it for that viewer; subscribe/unsubscribe over one socket;
 * hashtag, list and public streams with their rules; refusals.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { WsClient } from "./helpers.ts";

test("WebSocket streams", async (t) => {
  const instance = await startInstance({ listen: true });
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    await ok(instance, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);

    await t.step(
      "a followee's post arrives on user within a second, as REST shows it",
      async () => {
        const ws = await WsClient.open(
          instance,
          `/api/v1/streaming?stream=user&access_token=${bob.token}`,
        );
        try {
          const posted = Date.now();
          const status = await postStatus(instance, alice, "Hello followers");
          const frame = await ws.next("update", "user", 1000);
          assert(Date.now() - posted < 1000);
          assert.deepEqual(frame.stream, ["user"]);
          const rest = await ok(instance, bob, "GET", `/api/v1/statuses/${status.id}`);
          assert.deepEqual(JSON.parse(frame.payload!), rest);
        } finally {
          await ws.close();
        }
      },
    );
  } finally {
    await instance.close({ destroy: true });
  }
});
