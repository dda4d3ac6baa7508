/**
 * What one Rookery writes, another reads back (issue 19's round trip):
 * a locked account with profile fields and a pinned post carrying a hashtag
 * and a content warning, resolved by search on the other instance, whose
 * featured collection sync brings the pin. Language (contentMap) and the
 * attachments' blurhash and focal point need the writing side of issue 19
 * (wire19); its wire_round_trip_test checks them on the wire.
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { closeAll, startPair } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";

test("a locked profile, its fields and a pinned post with a hashtag and a CW survive the trip", async () => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    await ok(a, alice, "PATCH", "/api/v1/accounts/update_credentials", {
      locked: true,
      fields_attributes: {
        "0": { name: "Garden", value: "roses" },
        "1": { name: "Pond", value: "koi" },
      },
    });
    const post = await postStatus(a, alice, "Pinned for the #RoundTrip", {
      spoiler_text: "about gardens",
      visibility: "public",
    });
    await ok(a, alice, "POST", `/api/v1/statuses/${post.id}/pin`);

    const found = await ok(
      b,
      bob,
      "GET",
      `/api/v2/search?resolve=true&type=accounts&q=${encodeURIComponent(`alice@${a.domain}`)}`,
    );
    assert.equal(found.accounts.length, 1);
    const remote = found.accounts[0];
    assert.equal(remote.locked, true);
    assert.deepEqual(
      remote.fields.map((f: { name: string; value: string }) => [f.name, f.value]),
      [["Garden", "roses"], ["Pond", "koi"]],
    );
    const pinned = await eventually("the pin on B", async () => {
      const list = await ok(b, bob, "GET", `/api/v1/accounts/${remote.id}/statuses?pinned=true`);
      return list.length === 1 ? list[0] : null;
    }, 60_000);
    assert.equal(pinned.uri, post.uri);
    assert.deepEqual(pinned.tags.map((t: { name: string }) => t.name), ["roundtrip"]);
    assert.equal(pinned.spoiler_text, "about gardens");
    assert.equal(pinned.sensitive, true);
    const timeline = await ok(b, bob, "GET", "/api/v1/timelines/tag/roundtrip");
    assert.ok(timeline.some((s: { uri: string }) => s.uri === post.uri));
  } finally {
    await closeAll(a, b);
  }
});
