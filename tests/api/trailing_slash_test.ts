/**
 * Rails ignores a trailing slash, and clients rely on it: Mastodon.py 1.x
 * calls `/api/v1/instance/` and `/api/v1/conversations/`. Every route, the
 * ActivityPub ones included, answers the same with or without it; an inbox
 * reached with a slash is guarded like one without.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { call, callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

test("every route answers with a trailing slash as without", async () => {
  const instance = await startInstance();
  try {
    const alice = await createUser(instance, "alice");
    for (const path of ["/api/v1/instance", "/api/v2/instance", "/api/v1/conversations"]) {
      const plain = await callJson(instance, alice, "GET", path);
      const slashed = await callJson(instance, alice, "GET", `${path}/`);
      assert.equal(plain.status, 200, path);
      assert.equal(slashed.status, 200, `${path}/`);
      assert.deepEqual(slashed.body, plain.body, path);
    }
    const me = await callJson(instance, alice, "GET", "/api/v1/accounts/verify_credentials/");
    assert.equal(me.body.username, "alice");
    const posted = await callJson(instance, alice, "POST", "/api/v1/statuses/", {
      status: "with a slash",
    });
    assert.equal(posted.status, 200);
    const read = await callJson(instance, alice, "GET", `/api/v1/statuses/${posted.body.id}/`);
    assert.equal(read.body.content, "<p>with a slash</p>");
    // Scopes still hold on the slashed path.
    assert.equal((await call(instance, null, "GET", "/api/v1/conversations/")).status, 401);

    const actor = await instance.request("/users/alice/", {
      headers: { Accept: "application/activity+json" },
    });
    assert.equal(actor.status, 200);
    assert.equal((await actor.json()).id, `${instance.origin}/users/alice`);
    // The guard sees the slashed inbox too: unsigned is refused unread.
    const inbox = await instance.request("/users/alice/inbox/", {
      method: "POST",
      headers: { "Content-Type": "application/activity+json" },
      body: "{}",
    });
    await inbox.body?.cancel();
    assert.equal(inbox.status, 401);
  } finally {
    await instance.close({ destroy: true });
  }
});
