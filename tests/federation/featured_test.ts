/**
 * The featured collection lists pinned public and unlisted posts as Notes,
 * newest pin first; private pins stay out of it.
 */
import assert from "node:assert/strict";
import { json, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { AP_ACCEPT } from "./helpers.ts";

test("featured collection: pinned public posts as Notes, private pins left out", async () => {
  const a = await startInstance();
  try {
    const alice = await createUser(a, "alice");
    const older = await postStatus(a, alice, "first pin");
    const hidden = await postStatus(a, alice, "followers only", { visibility: "private" });
    const newer = await postStatus(a, alice, "second pin", { visibility: "unlisted" });
    for (const s of [older, hidden, newer]) {
      await ok(a, alice, "POST", `/api/v1/statuses/${s.id}/pin`);
    }
    const res = await a.request("/users/alice/collections/featured", {
      headers: { Accept: AP_ACCEPT },
    });
    assert.equal(res.status, 200);
    const featured = await json(res);
    assert.equal(featured.type, "OrderedCollection");
    assert.equal(featured.totalItems, 2);
    assert.deepEqual(featured.orderedItems.map((n: { id: string }) => n.id), [
      newer.uri,
      older.uri,
    ]);
    assert.equal(featured.orderedItems[0].type, "Note");
    assert.match(featured.orderedItems[1].content, /first pin/);
  } finally {
    await a.close({ destroy: true });
  }
});
