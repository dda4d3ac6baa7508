/**
 * Unfollowing, muting or blocking takes the other account's posts (and
 * boosts) out of the home timeline, as Mastodon's unmerge does.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { follow, ids } from "./helpers.ts";

test("unfollow, mute and block take the author's posts out of home", async () => {
  const instance = await startInstance();
  try {
    const reader = await createUser(instance, "reader");
    const names = ["gone", "muted", "blocked"] as const;
    const authors = Object.fromEntries(
      await Promise.all(names.map(async (n) => [n, await createUser(instance, n)])),
    );
    const posted: Record<string, string> = {};
    for (const n of names) {
      await follow(instance, reader, authors[n]);
      posted[n] = (await postStatus(instance, authors[n], `hello from ${n}`)).id;
    }
    const home = () => ids(instance, reader, "/api/v1/timelines/home");
    assert.deepEqual(new Set(await home()), new Set(Object.values(posted)));

    await callJson(instance, reader, "POST", `/api/v1/accounts/${authors.gone.id}/unfollow`);
    await callJson(instance, reader, "POST", `/api/v1/accounts/${authors.muted.id}/mute`);
    await callJson(instance, authors.blocked, "POST", `/api/v1/accounts/${reader.id}/block`);
    assert.deepEqual(await home(), []);
  } finally {
    await instance.close({ destroy: true });
  }
});
