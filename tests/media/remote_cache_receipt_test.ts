/**
 * Remote files copied at receipt: a fake peer delivers a Note with an image
 * and a custom emoji, and without any client looking the worker stores both
 * (one download each), and the emoji of its author's profile; the API then
 * hands out our copies' URLs, the original kept in `remote_url`. A failed
 * copy is recorded and leaves the proxy URL. A reject_media domain's Note fetches
 * nothing.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { type FakePeer, publicNoteCreate, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { domainRuleSeen, eventually } from "../fixtures/wait.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { customEmojis, mediaAttachments } from "../../db/schema/mod.ts";
import { runAdminCommand } from "../../admin/commands.ts";
import { image } from "./helpers.ts";

/** An Emoji tag of `peer`'s `name`, its image at `/{name}.png`. */
function emojiTag(peer: FakePeer, name: string) {
  return {
    type: "Emoji",
    id: `${peer.origin}/emoji/${name}`,
    name: `:${name}:`,
    icon: { type: "Image", mediaType: "image/png", url: `${peer.origin}/${name}.png` },
  };
}

/** A peer serving a photo and two emoji images, with one actor whose name has `:wave:`. */
async function painterPeer() {
  const peer = await startFakePeer();
  const files = [["/photo.png", [120, 90]], ["/blob.png", [32, 32]], ["/wave.png", [32, 32]]];
  for (const [path, [w, h]] of files as [string, number[]][]) {
    const png = await image("png", w, h);
    peer.route(path, () => new Response(png, { headers: { "Content-Type": "image/png" } }));
  }
  const actor = peer.publishActor("painter", {
    name: "Painter :wave:",
    tag: [emojiTag(peer, "wave")],
  });
  return { peer, actor };
}

/** A Create of a Note with the peer's `photo` (default its photo) and its `:blob:` emoji. */
function noteWithFiles(peer: FakePeer, actor: string, serial: number, photo = "/photo.png") {
  return publicNoteCreate(actor, `${actor}/notes/${serial}`, {
    content: "look :blob:",
    attachment: [{ type: "Document", mediaType: "image/png", url: `${peer.origin}${photo}` }],
    tag: [emojiTag(peer, "blob")],
  });
}

test("remote attachments and emoji are copied when the status arrives", async (t) => {
  const instance = await startInstance();
  const good = await painterPeer();
  const muted = await painterPeer();
  const send = (request: Request) => instance.request(request.url, request);
  const db = instance.rookery.ctx.database.db;
  const deliver = async (
    from: { peer: FakePeer; actor: string },
    serial: number,
    photo?: string,
  ) => {
    const activity = noteWithFiles(from.peer, from.actor, serial, photo);
    const res = await from.peer.deliver(`${instance.origin}/inbox`, activity, {
      keyId: `${from.actor}#main-key`,
      send,
    });
    assert.equal(await statusOf(res), 202);
    return await eventually("the note", () => storedStatus(instance, activity.object.id));
  };
  try {
    const reader = await createUser(instance, "reader");
    const blocked = await runAdminCommand({
      db,
      config: instance.rookery.ctx.config,
      media: instance.rookery.ctx.media,
    }, [
      "domain",
      "block",
      new URL(muted.peer.origin).host,
      "--severity",
      "noop",
      "--reject-media",
    ]);
    assert.equal(blocked.exitCode, 0, blocked.stderr);
    await domainRuleSeen(instance.rookery.ctx.core.domainRules, new URL(muted.peer.origin).host);
    // The muted domain's note first: once the good one's copies stand, its job had its turn.
    const mutedStatus = await deliver(muted, 1);
    const stored = await deliver(good, 1);

    await t.step("the worker stores the image and the emojis, one download each", async () => {
      const [photo] = await eventually("the photo's copy", async () => {
        const rows = await db.select().from(mediaAttachments)
          .where(eq(mediaAttachments.statusId, stored.id));
        return rows[0]?.filePath ? rows : null;
      });
      assert.equal(photo.remoteUrl, `${good.peer.origin}/photo.png`);
      assert.ok(photo.previewPath, "its small preview too");
      const emoji = await eventually("the emoji's copy", async () => {
        const [row] = await db.select().from(customEmojis)
          .where(eq(customEmojis.remoteUrl, `${good.peer.origin}/blob.png`));
        return row?.filePath && row.staticPath ? row : null;
      });
      assert.equal(emoji.shortcode, "blob");
      // The author's profile emoji too (before any look: a cached entity would keep the proxy URL).
      await eventually("the profile emoji's copy", async () => {
        const [row] = await db.select().from(customEmojis)
          .where(eq(customEmojis.remoteUrl, `${good.peer.origin}/wave.png`));
        return row?.filePath;
      });
      assert.equal(good.peer.hits("/photo.png"), 1);
      assert.equal(good.peer.hits("/blob.png"), 1);
    });

    await t.step("the API hands out our copies, the original in remote_url", async () => {
      const { body } = await callJson(instance, reader, "GET", `/api/v1/statuses/${stored.id}`);
      const [photo] = body.media_attachments;
      assert.match(photo.url, new RegExp(`^${instance.origin}/system/cache/media_attachments/`));
      assert.match(photo.preview_url, /\/system\/cache\/.*\/small-/);
      assert.equal(photo.remote_url, `${good.peer.origin}/photo.png`);
      assert.match(body.emojis[0].url, /\/system\/cache\/custom_emojis\/images\//);
      assert.match(body.emojis[0].static_url, /\/system\/cache\/custom_emojis\/images\//);
      const copy = await instance.request(photo.url);
      assert.equal(copy.status, 200);
      assert.equal(copy.headers.get("content-type"), "image/png");
      await copy.body?.cancel();
      assert.equal(good.peer.hits("/photo.png"), 1, "served from our copy");
    });

    await t.step("the author's profile emoji is copied too", async () => {
      assert.equal(good.peer.hits("/wave.png"), 1);
      const { body } = await callJson(instance, reader, "GET", `/api/v1/statuses/${stored.id}`);
      assert.equal(body.account.display_name, "Painter :wave:");
      assert.match(body.account.emojis[0].url, /\/system\/cache\/custom_emojis\/images\//);
    });

    await t.step("a failed copy is recorded and the proxy URL stays", async () => {
      good.peer.route("/broken.png", () => new Response("oops", { status: 500 }));
      const broken = await deliver(good, 2, "/broken.png");
      const [row] = await eventually("the failure recorded", async () => {
        const rows = await db.select().from(mediaAttachments)
          .where(eq(mediaAttachments.statusId, broken.id));
        return rows[0]?.cacheFailedAt ? rows : null;
      });
      assert.equal(row.filePath, null);
      assert.equal(good.peer.hits("/broken.png"), 1);
      const { body } = await callJson(instance, reader, "GET", `/api/v1/statuses/${broken.id}`);
      const [photo] = body.media_attachments;
      assert.match(
        photo.url,
        new RegExp(`^${instance.origin}/media_proxy/${photo.id}/original\\?sig=`),
      );
      assert.equal(photo.remote_url, `${good.peer.origin}/broken.png`);
    });

    await t.step("a reject_media domain's note fetches nothing", async () => {
      const { body } = await callJson(
        instance,
        reader,
        "GET",
        `/api/v1/statuses/${mutedStatus.id}`,
      );
      assert.equal(body.media_attachments[0].type, "unknown");
      assert.deepEqual(body.emojis, []);
      assert.equal(muted.peer.hits("/photo.png"), 0);
      assert.equal(muted.peer.hits("/blob.png"), 0);
      assert.equal(muted.peer.hits("/wave.png"), 0);
    });
  } finally {
    await good.peer.close();
    await muted.peer.close();
    await instance.close({ destroy: true });
  }
});
