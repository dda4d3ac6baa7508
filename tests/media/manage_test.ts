/** Own media: show, change, delete; someone else's; attached media; the daily cleanup. */
import assert from "node:assert/strict";
import sharp from "sharp";
import { eq } from "drizzle-orm";
import { json, startInstance, test } from "../harness.ts";
import { mediaAttachments } from "../../db/schema/mod.ts";
import { removeUnattachedMedia } from "../../actors/media/processing.ts";
import { attachToStatus, authed, fetchFile, form, image, localUser, upload } from "./helpers.ts";

test("show, update and delete own media; others' are 404; attached media stays", async () => {
  const instance = await startInstance();
  try {
    const alice = await localUser(instance, "alice");
    const bob = await localUser(instance, "bob");
    const send = (token: string, path: string, init: RequestInit = {}) =>
      authed(instance, token, path, init);
    const put = (token: string, id: string, body: FormData | Record<string, string>) =>
      send(token, `/api/v1/media/${id}`, {
        method: "PUT",
        ...(body instanceof FormData ? { body } : {
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      });

    const media = await json(
      await upload(
        instance,
        alice.token,
        form({ bytes: await image("jpeg", 640, 480), type: "image/jpeg" }),
      ),
    );
    const shown = await send(alice.token, `/api/v1/media/${media.id}`);
    assert.equal(shown.status, 200);
    assert.deepEqual(await json(shown), media);

    // Someone else's, a missing one and a malformed id: all the same 404.
    for (const [token, id] of [[bob.token, media.id], [alice.token, "1"], [alice.token, "x"]]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const res = await send(token, `/api/v1/media/${id}`, { method });
        assert.equal(res.status, 404, `${method} ${id}`);
        assert.deepEqual(await json(res), { error: "Record not found" });
      }
    }

    // Description and focus (JSON body), then a bad focus and an over-long description.
    const updated = await json(
      await put(alice.token, media.id, { description: "Alt text", focus: "0.1,-0.9" }),
    );
    assert.equal(updated.description, "Alt text");
    // Up to 10,000 characters since Mastodon 4.7.
    const long = await json(await put(alice.token, media.id, { description: "y".repeat(10_000) }));
    assert.equal(long.description.length, 10_000);
    assert.deepEqual(updated.meta.focus, { x: 0.1, y: -0.9 });
    assert.deepEqual(updated.meta.original, media.meta.original);
    assert.equal(updated.url, media.url);
    for (
      const [body, error] of [
        [{ focus: "1.5,0" }, "Validation failed: Focus is invalid"],
        [{ focus: "0,0,0" }, "Validation failed: Focus is invalid"],
        [
          { description: "x".repeat(10_001) },
          "Validation failed: Description is too long (maximum is 10000 characters)",
        ],
      ] as const
    ) {
      const res = await put(alice.token, media.id, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal((await json(res)).error, error);
    }

    // A new thumbnail replaces the preview (new URL, old file gone) and the blurhash.
    const thumbRes = await put(
      alice.token,
      media.id,
      form(null, { description: "" }, { bytes: await image("png", 300, 300), type: "image/png" }),
    );
    const thumbed = await json(thumbRes);
    assert.equal(thumbRes.status, 200, JSON.stringify(thumbed));
    assert.equal(thumbed.description, null, "blank clears the description");
    assert.notEqual(thumbed.preview_url, media.preview_url);
    assert.deepEqual(thumbed.meta.small, {
      width: 300,
      height: 300,
      size: "300x300",
      aspect: 1,
    });
    assert.deepEqual(thumbed.meta.focus, { x: 0.1, y: -0.9 }, "focus kept");
    assert.equal((await fetchFile(instance, media.preview_url)).res.status, 404);
    const preview = await fetchFile(instance, thumbed.preview_url);
    assert.equal(preview.res.status, 200);
    assert.equal((await sharp(preview.bytes).metadata()).width, 300);

    // Attached to a status: GET and PUT no longer see it, DELETE refuses.
    await attachToStatus(instance, media.id);
    assert.equal((await send(alice.token, `/api/v1/media/${media.id}`)).status, 404);
    assert.equal((await put(alice.token, media.id, { description: "late" })).status, 404);
    const refused = await send(alice.token, `/api/v1/media/${media.id}`, { method: "DELETE" });
    assert.equal(refused.status, 422);
    assert.deepEqual(await json(refused), {
      error: "Media attachment is currently used by a status",
    });
    assert.equal((await fetchFile(instance, media.url)).res.status, 200, "files kept");

    // Unattached: deleted with its files.
    const loose = await json(
      await upload(
        instance,
        alice.token,
        form({ bytes: await image("png", 50, 50), type: "image/png" }),
      ),
    );
    const deleted = await send(alice.token, `/api/v1/media/${loose.id}`, { method: "DELETE" });
    assert.equal(deleted.status, 200);
    assert.deepEqual(await json(deleted), {});
    assert.equal((await fetchFile(instance, loose.url)).res.status, 404);
    assert.equal((await fetchFile(instance, loose.preview_url)).res.status, 404);
    assert.equal((await send(alice.token, `/api/v1/media/${loose.id}`)).status, 404);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("the cleanup removes unattached media older than a day, with its files", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const { token } = await localUser(instance, "hoarder");
    const db = instance.rookery.ctx.database.db;
    const png = await image("png", 60, 40);
    const ids: string[] = [];
    const urls: string[] = [];
    for (let i = 0; i < 3; i++) {
      const m = await json(await upload(instance, token, form({ bytes: png, type: "image/png" })));
      ids.push(m.id);
      urls.push(m.url);
    }
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60_000);
    await db.update(mediaAttachments).set({ createdAt: twoDaysAgo })
      .where(eq(mediaAttachments.id, ids[0]));
    await db.update(mediaAttachments).set({ createdAt: twoDaysAgo })
      .where(eq(mediaAttachments.id, ids[1]));
    await attachToStatus(instance, ids[1]);

    assert.equal(await removeUnattachedMedia(instance.rookery.ctx), 1);
    const left = (await db.select({ id: mediaAttachments.id }).from(mediaAttachments))
      .map((r) => r.id).sort();
    assert.deepEqual(left, [ids[1], ids[2]].sort());
    assert.equal((await fetchFile(instance, urls[0])).res.status, 404);
    assert.equal((await fetchFile(instance, urls[1])).res.status, 200);
    assert.equal((await fetchFile(instance, urls[2])).res.status, 200);
  } finally {
    await instance.close({ destroy: true });
  }
});
