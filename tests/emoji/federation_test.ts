/**
 * Custom emoji across two instances over https: a status with an emoji
 * posted on A is shown on B from B's own copy (never at A's URL), which
 * B's worker makes when the status arrives; an edit changes B's list, and A's profile emoji (sent in an Update of the actor)
 * show on B's view of the account. Remote emoji are stored once per domain.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { test } from "../harness.ts";
import { customEmojis } from "../../db/schema/mod.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { arrived, closeAll, followRemote, startPair } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { addEmoji, fetchImage, gifImage } from "./helpers.ts";

test("emoji federate: statuses, edits and profiles seen on the other server", async () => {
  const { a, b } = await startPair();
  try {
    await addEmoji(a, "blobcat");
    await addEmoji(a, "blue_gif", { image: await gifImage() });
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    const aliceOnB = await followRemote(b, bob, a, alice);

    const status = await postStatus(a, alice, { status: "Hello :blobcat: world" });
    const onB = await arrived(b, status.uri, "status with emoji");
    const dbB = b.rookery.ctx.database.db;
    // Copied at receipt, before anyone looks.
    await eventually("B's copy of the emoji", async () => {
      const [row] = await dbB.select().from(customEmojis)
        .where(and(eq(customEmojis.domain, a.domain), eq(customEmojis.shortcode, "blobcat")));
      return row?.filePath;
    });
    const shown = await callJson(b, bob, "GET", `/api/v1/statuses/${onB.id}`);
    assert.equal(shown.status, 200);
    assert.match(shown.body.content, /Hello :blobcat: world/);
    assert.equal(shown.body.emojis.length, 1);
    const [emoji] = shown.body.emojis;
    assert.equal(emoji.shortcode, "blobcat");
    assert.ok(status.emojis[0].url.startsWith(`${a.origin}/system/custom_emojis/`));
    const copied = `${b.origin}/system/cache/custom_emojis/images/`;
    assert.ok(emoji.url.startsWith(copied), emoji.url);
    assert.ok(emoji.static_url.startsWith(copied), emoji.static_url);
    const image = await fetchImage(b, emoji.url);
    assert.equal(image.status, 200);
    assert.equal(image.type, "image/png");

    // An edit on A changes B's list.
    const edit = await callJson(a, alice, "PUT", `/api/v1/statuses/${status.id}`, {
      status: "Now :blue_gif: and :blobcat:",
    });
    assert.equal(edit.status, 200, JSON.stringify(edit.body));
    const afterEdit = await eventually("edit on B", async () => {
      const res = await callJson(b, bob, "GET", `/api/v1/statuses/${onB.id}`);
      return res.body.emojis?.length === 2 ? res.body : null;
    });
    assert.deepEqual(afterEdit.emojis.map((e: any) => e.shortcode), ["blobcat", "blue_gif"]);
    // Our copy, or the proxy while the worker is still copying it.
    assert.ok(afterEdit.emojis[1].url.startsWith(b.origin), afterEdit.emojis[1].url);

    // Profile emoji reach B with the Update of the actor.
    const profile = await callJson(a, alice, "PATCH", "/api/v1/accounts/update_credentials", {
      display_name: "Alice :blobcat:",
      note: "waves :blue_gif:",
    });
    assert.equal(profile.status, 200, JSON.stringify(profile.body));
    const account = await eventually("profile emoji on B", async () => {
      const res = await callJson(b, bob, "GET", `/api/v1/accounts/${aliceOnB}`);
      return res.body.emojis?.length === 2 ? res.body : null;
    });
    assert.equal(account.display_name, "Alice :blobcat:");
    assert.deepEqual(
      account.emojis.map((e: any) => e.shortcode),
      profile.body.emojis.map((e: any) => e.shortcode),
    );
    for (const e of account.emojis) assert.ok(e.url.startsWith(b.origin), e.url);

    // One row per remote emoji, whatever used it.
    const rows = await dbB.select().from(customEmojis)
      .where(and(eq(customEmojis.domain, a.domain), eq(customEmojis.shortcode, "blobcat")));
    assert.equal(rows.length, 1);
    assert.equal(rows[0].uri?.startsWith(`${a.origin}/emojis/`), true);
    // Remote emoji are not in B's picker.
    assert.deepEqual((await callJson(b, null, "GET", "/api/v1/custom_emojis")).body, []);
  } finally {
    await closeAll(a, b);
  }
});
