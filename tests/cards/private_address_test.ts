/**
 * Without ALLOW_PRIVATE_ADDRESS, link previews never reach loopback or
 * private addresses: the page server on 127.0.0.1 sees no request at all.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { getStatus, jobsDrained, startPageServer } from "./helpers.ts";

test("a loopback link is not fetched unless private addresses are allowed", async () => {
  const pages = await startPageServer();
  const instance = await startInstance({ env: { ALLOW_PRIVATE_ADDRESS: "false" } });
  try {
    const alice = await createUser(instance, "alice");
    const port = new URL(pages.base).port;
    const statuses = [
      await postStatus(instance, alice, { status: `${pages.base}/og` }),
      await postStatus(instance, alice, { status: `http://localhost:${port}/og` }),
      await postStatus(instance, alice, { status: `http://[::1]:${port}/og` }),
      await postStatus(instance, alice, { status: `http://10.0.0.1:${port}/og` }),
    ];
    await jobsDrained(instance);
    for (const s of statuses) assert.equal((await getStatus(instance, alice, s.id)).card, null);
    assert.deepEqual(pages.requests, []);
  } finally {
    await instance.close({ destroy: true });
    await pages.close();
  }
});
