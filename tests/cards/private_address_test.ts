/**
 * Without ALLOW_PRIVATE_ADDRESS, link previews never reach loopback or
 * private addresses: the page server on 127.0.0.1 sees no request at all,
 * while a server that allows them gets the card of the same link.
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
    // The control: the same link on a server that allows private addresses
    // gets its card, so the refusal above is the guard, not a job that never ran.
    const open = await startInstance({ env: { ALLOW_PRIVATE_ADDRESS: "true" } });
    try {
      const bob = await createUser(open, "bob");
      const control = await postStatus(open, bob, { status: `${pages.base}/og` });
      await jobsDrained(open);
      assert.notEqual((await getStatus(open, bob, control.id)).card, null);
      assert.ok(pages.requests.length > 0);
    } finally {
      await open.close({ destroy: true });
    }
  } finally {
    await instance.close({ destroy: true });
    await pages.close();
  }
});
