/**
 * The media store against the database, on one instance:
 * - a remote Delete of a status removes its attachments at once (there is
 *   no redraft of a remote status here), with any stored copy of them;
 * - `media remove-orphans` lists and (without --dry-run) deletes the files
 *   no row points at, leaves alone those under an hour old and everything
 *   rows point at, never looks outside the store's folders, and reports the
 *   rows whose file is missing.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { eq } from "drizzle-orm";
import { json, startInstance, test, type TestInstance } from "../harness.ts";
import { mediaAttachments } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { newAttachmentKey } from "../../actors/media/store/keys.ts";
import { storedFile } from "../fixtures/media.ts";
import { runAdminCommand } from "../../admin/commands.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";
import { createUser } from "../fixtures/users.ts";
import { updateCredentials } from "../accounts/helpers.ts";
import { addEmoji } from "../emoji/helpers.ts";
import { form, image, upload } from "./helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
const HOUR = 60 * 60_000;

/** The key of one of our media URLs. */
const keyOf = (url: string) => new URL(url).pathname.replace(/^\/system\//, "");

async function served(instance: TestInstance, key: string): Promise<number> {
  return await statusOf(await instance.request(`/system/${key}`));
}

test("the media store against the database", async (t) => {
  const instance = await startInstance({ listen: true });
  const { ctx } = instance.rookery;
  const store = ctx.media;
  const env = { db: ctx.database.db, config: ctx.config, media: ctx.media };
  const onDisk = (key: string) => existsSync(storedFile(instance.dataDir, key));
  const peer = await startFakePeer();
  try {
    await t.step("a remote Delete removes the status's media and their stored files", async () => {
      const fan = peer.publishActor("fan");
      const noteId = `${fan}/notes/1`;
      const deliver = async (activity: Record<string, unknown>) => {
        const res = await peer.deliver(`${instance.origin}/inbox`, {
          "@context": AS,
          actor: fan,
          ...activity,
        }, { keyId: `${fan}#main-key`, send: (r) => instance.request(r.url, r) });
        assert.equal(await statusOf(res), 202);
      };
      await deliver({
        id: `${noteId}/activity`,
        type: "Create",
        to: [PUBLIC],
        object: {
          id: noteId,
          type: "Note",
          attributedTo: fan,
          to: [PUBLIC],
          content: "a picture",
          published: new Date().toISOString(),
          attachment: [{ type: "Document", mediaType: "image/png", url: `${peer.origin}/1.png` }],
        },
      });
      const status = await eventually("the note", () => storedStatus(instance, noteId));
      const [media] = await env.db.select().from(mediaAttachments)
        .where(eq(mediaAttachments.statusId, status.id));
      // A stored copy of it, as a media cache keeps one.
      const copy = newAttachmentKey(media.id, "original", "png");
      await store.put(copy, await image("png", 10, 10), { contentType: "image/png" });
      await env.db.update(mediaAttachments).set({ filePath: copy })
        .where(eq(mediaAttachments.id, media.id));
      assert.equal(await served(instance, copy), 200);

      await deliver({ id: `${noteId}#delete`, type: "Delete", to: [PUBLIC], object: noteId });
      await eventually("the copy gone", () => Promise.resolve(!onDisk(copy)));
      assert.equal(await served(instance, copy), 404);
      const left = await env.db.select().from(mediaAttachments)
        .where(eq(mediaAttachments.id, media.id));
      assert.deepEqual(left, []);
    });

    await t.step("media remove-orphans", async () => {
      const alice = await createUser(instance, "alice");
      const avatarForm = new FormData();
      avatarForm.append(
        "avatar",
        new File([await image("png", 60, 60)], "a.png", { type: "image/png" }),
      );
      const me = await json(await updateCredentials(instance, alice.token, avatarForm));
      const media = await json(
        await upload(
          instance,
          alice.token,
          form({ bytes: await image("png", 30, 20), type: "image/png" }),
        ),
      );
      const emoji = await addEmoji(instance, "blob");
      const referenced = [
        keyOf(me.avatar),
        keyOf(media.url),
        keyOf(media.preview_url),
        emoji.filePath!,
        emoji.staticPath!,
      ];

      // Orphans: of an attachment, an emoji and an avatar that have no row,
      // and a name the store never gives; all two hours old.
      const old = [
        newAttachmentKey(newId(), "original", "png"),
        `custom_emojis/images/000/000/000/000/000/000/042/static-0123456789abcdef.png`,
        `accounts/avatars/${alice.id}/${"ab".repeat(16)}.png`,
        "media_attachments/stray.png",
      ];
      const recent = newAttachmentKey(newId(), "small", "png");
      const bytes = await image("png", 8, 8);
      for (const key of [...old, recent]) await store.put(key, bytes, { contentType: "image/png" });
      const twoHoursAgo = new Date(Date.now() - 2 * HOUR);
      for (const key of old) {
        await Deno.utime(storedFile(instance.dataDir, key), twoHoursAgo, twoHoursAgo);
      }
      // Outside the store's folders: never looked at.
      const outside = storedFile(instance.dataDir, "elsewhere/old.png");
      await Deno.mkdir(dirname(outside), { recursive: true });
      await Deno.writeFile(outside, bytes);
      await Deno.utime(outside, twoHoursAgo, twoHoursAgo);
      // A row whose preview is missing.
      await Deno.remove(storedFile(instance.dataDir, keyOf(media.preview_url)));
      await env.db.update(mediaAttachments).set({ createdAt: twoHoursAgo })
        .where(eq(mediaAttachments.id, media.id));

      const dry = await runAdminCommand(env, ["media", "remove-orphans", "--dry-run"]);
      assert.equal(dry.exitCode, 0, dry.stderr);
      for (const key of old) assert.match(dry.stdout, new RegExp(`^would remove ${key}$`, "m"));
      assert.ok(!dry.stdout.includes(recent), "too recent to judge");
      assert.match(
        dry.stdout,
        new RegExp(
          `^missing ${keyOf(media.preview_url)} \\(media_attachments ${media.id}\\)$`,
          "m",
        ),
      );
      assert.match(
        dry.stdout,
        /would remove 4 orphan files .*; 1 row points at a missing file; left 1 unreferenced file under an hour old \(dry run: nothing changed\)\.$/m,
      );
      for (const key of [...old, recent]) assert.ok(onDisk(key), key);

      const run = await runAdminCommand(env, ["media", "remove-orphans"]);
      assert.equal(run.exitCode, 0, run.stderr);
      for (const key of old) {
        assert.match(run.stdout, new RegExp(`^removed ${key}$`, "m"));
        assert.ok(!onDisk(key), key);
      }
      assert.match(run.stdout, /: removed 4 orphan files /);
      assert.ok(onDisk(recent) && existsSync(outside));
      for (const key of referenced.filter((k) => k !== keyOf(media.preview_url))) {
        assert.ok(onDisk(key), key);
        assert.equal(await served(instance, key), 200, key);
      }
      // Nothing left to remove; the missing file is still reported.
      const again = await runAdminCommand(env, ["media", "remove-orphans"]);
      assert.match(
        again.stdout,
        /removed 0 orphan files \(0 bytes\); 1 row points at a missing file/,
      );
    });
  } finally {
    await peer.close();
    await instance.close({ destroy: true });
  }
});
