/**
 * What one Rookery writes, another reads back (issue 19's round trip),
 * through the Mastodon API of the other instance: a locked account with
 * profile fields, resolved by search; a pinned post in French with a
 * hashtag, a content warning and a focused picture, brought by the
 * featured collection sync; and, once the follow request is accepted, a
 * delivered post with the same (the LD-signed Create read as sent).
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { mediaRow } from "../fixtures/media.ts";
import { arrived, closeAll, startPair } from "../fixtures/federation.ts";
import { eq } from "drizzle-orm";
import { mediaAttachments } from "../../db/schema/mod.ts";
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
    const focusedPicture = async () => {
      const id = await mediaRow(a, alice);
      await a.rookery.ctx.database.db.update(mediaAttachments).set({
        meta: { original: { width: 2, height: 1 }, focus: { x: 0.5, y: -0.25 } },
      }).where(eq(mediaAttachments.id, id));
      return id;
    };
    const post = await postStatus(a, alice, "Épinglé pour le #RoundTrip", {
      spoiler_text: "about gardens",
      visibility: "public",
      language: "fr",
      media_ids: [await focusedPicture()],
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
    const survived = (status: any, what: string) => {
      assert.equal(status.language, "fr", `${what}: language`);
      assert.equal(status.media_attachments.length, 1, `${what}: media`);
      assert.equal(
        status.media_attachments[0].blurhash,
        "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
        `${what}: blurhash`,
      );
      assert.deepEqual(status.media_attachments[0].meta.focus, { x: 0.5, y: -0.25 }, what);
    };
    survived(pinned, "the pin");

    // Delivered: bob's request to the locked alice, accepted; her next post reaches him.
    const follow = await ok(b, bob, "POST", `/api/v1/accounts/${remote.id}/follow`);
    assert.equal(follow.requested, true);
    const request = await eventually("the request on A", async () => {
      const list = await ok(a, alice, "GET", "/api/v1/follow_requests");
      return list.length === 1 ? list[0] : null;
    });
    await ok(a, alice, "POST", `/api/v1/follow_requests/${request.id}/authorize`);
    await eventually("the follow on B", async () => {
      const [rel] = await ok(b, bob, "GET", `/api/v1/accounts/relationships?id[]=${remote.id}`);
      return rel.following || null;
    });
    const sent = await postStatus(a, alice, "Livré avec le #RoundTrip", {
      spoiler_text: "about ponds",
      visibility: "private",
      language: "fr",
      media_ids: [await focusedPicture()],
    });
    const row = await arrived(b, sent.uri);
    const delivered = await ok(b, bob, "GET", `/api/v1/statuses/${row.id}`);
    survived(delivered, "the delivered post");
    assert.deepEqual(delivered.tags.map((t: { name: string }) => t.name), ["roundtrip"]);
    assert.equal(delivered.spoiler_text, "about ponds");
    assert.equal(delivered.visibility, "private");
  } finally {
    await closeAll(a, b);
  }
});
