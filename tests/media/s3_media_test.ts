/**
 * A server on object storage (S3_ENABLED=true, fauxqs in this process, or
 * TEST_S3_ENDPOINT): uploads and avatars go to the bucket and nowhere on
 * the local disk, are served at ORIGIN/system/… with ranges, deleted media
 * leave the bucket; archives are built into it and download through
 * Rookery only; with S3_ALIAS_HOST the URLs point at the alias and
 * /system redirects there; a bucket that is down answers Mastodon's 503 and
 * writes no row.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { mediaAttachments } from "../../db/schema/mod.ts";
import { startS3Server } from "../fixtures/s3_server.ts";
import { authed, clip, form, image, localUser, upload, waitProcessed } from "./helpers.ts";
import { ffmpegAvailable } from "../../actors/media/ffmpeg.ts";
import { updateCredentials } from "../accounts/helpers.ts";
import { unzipSync } from "fflate";
import { createUser } from "../fixtures/users.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";
import { requestArchive } from "../../actors/import_export/archive.ts";
import { eventually } from "../fixtures/wait.ts";
import { backups } from "../../db/schema/mod.ts";

/** The store key of one of our /system URLs. */
const keyOf = (url: string) => new URL(url).pathname.replace(/^\/system\//, "");

async function bytesOf(res: Response): Promise<Uint8Array> {
  return new Uint8Array(await res.arrayBuffer());
}

async function uploadPng(instance: TestInstance, token: string) {
  const res = await upload(
    instance,
    token,
    form({ bytes: await image("png", 40, 30), type: "image/png" }),
  );
  assert.equal(res.status, 200);
  return await res.json() as { id: string; url: string; preview_url: string };
}

test("media on object storage", async (t) => {
  const s3 = await startS3Server();
  let instance: TestInstance | null = null;
  try {
    const bucket = await s3.bucket();
    instance = await startInstance({ listen: true, env: bucket.env });
    const server = instance;
    const alice = await localUser(server, "alice");

    await t.step("an upload goes to the bucket and is served at ORIGIN/system", async () => {
      const media = await uploadPng(server, alice.token);
      assert.ok(media.url.startsWith(`${server.origin}/system/media_attachments/files/`));
      const original = keyOf(media.url);
      const small = keyOf(media.preview_url);
      assert.deepEqual((await bucket.keys("media_attachments/")).sort(), [original, small].sort());
      const object = await bucket.object(original);
      assert.equal(object?.contentType, "image/png");
      assert.equal(object?.cacheControl, "public, max-age=315576000, immutable");
      const res = await server.request(media.url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "image/png");
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.deepEqual(await bytesOf(res), object!.bytes);
      const ranged = await server.request(media.url, { headers: { range: "bytes=0-9" } });
      assert.equal(ranged.status, 206);
      assert.equal(ranged.headers.get("content-range"), `bytes 0-9/${object!.bytes.length}`);
      assert.deepEqual(await bytesOf(ranged), object!.bytes.subarray(0, 10));
      const past = await server.request(media.url, { headers: { range: "bytes=999999-" } });
      assert.equal(past.status, 416);
      await past.body?.cancel();
    });

    await t.step("an avatar goes to the bucket; deleted media leave it", async () => {
      const body = new FormData();
      body.append("avatar", new File([await image("png", 64, 64)], "a.png", { type: "image/png" }));
      const res = await updateCredentials(server, alice.token, body);
      assert.equal(res.status, 200);
      const { avatar } = await res.json();
      const key = keyOf(avatar);
      assert.match(key, new RegExp(`^accounts/avatars/${alice.account.id}/[0-9a-f]{32}\\.`));
      assert.ok(await bucket.has(key));
      assert.equal((await server.request(avatar)).status, 200);

      const media = await uploadPng(server, alice.token);
      const deleted = await authed(server, alice.token, `/api/v1/media/${media.id}`, {
        method: "DELETE",
      });
      assert.equal(deleted.status, 200);
      await deleted.body?.cancel();
      assert.equal(await bucket.has(keyOf(media.url)), false);
      assert.equal(await bucket.has(keyOf(media.preview_url)), false);
      assert.equal((await server.request(media.url)).status, 404);
    });

    await t.step("an archive is built into the bucket and downloads through Rookery", async () => {
      const carol = await createUser(server, "carol");
      const session = await signInOverHttp(server, "carol", "/settings/archive");
      const { db } = server.rookery.ctx.database;
      // The request records its build job; the instance's worker runs it.
      const row = await requestArchive(db, carol.userId);
      const built = await eventually("the archive is built", async () => {
        const [now] = await db.select().from(backups).where(eq(backups.id, row.id));
        return now.state === "done" ? now : null;
      });
      assert.match(built.fileKey!, /^archives\/archive-\d{14}-[0-9a-f]{32}\.zip$/);
      const object = await bucket.object(built.fileKey!);
      assert.equal(object?.cacheControl, "private, no-store");
      const res = await session.get(`/settings/archives/${row.id}/download`);
      assert.equal(res.status, 200);
      const zip = await bytesOf(res);
      assert.deepEqual(zip, object!.bytes);
      assert.ok("actor.json" in unzipSync(zip), "the archive holds actor.json");
      // Never public: not under /system, whatever the store.
      const direct = await server.request(`/system/${built.fileKey}`);
      assert.equal(direct.status, 404);
      await direct.body?.cancel();
    });

    await t.step("nothing was written under DATA_DIR", () => {
      assert.equal(existsSync(join(server.dataDir, "media")), false);
      assert.equal(existsSync(join(server.dataDir, "archives")), false);
    });

    await t.step("S3_ALIAS_HOST: URLs on the alias, /system redirects there", async () => {
      const aliasBucket = await s3.bucket({
        S3_ALIAS_HOST: `${new URL(s3.endpoint).host}/__BUCKET__`,
        S3_PROTOCOL: "http",
      });
      const env = { ...aliasBucket.env };
      env.S3_ALIAS_HOST = env.S3_ALIAS_HOST.replace("__BUCKET__", aliasBucket.name);
      const aliased = await startInstance({ listen: true, env });
      try {
        const bob = await localUser(aliased, "bob");
        const media = await uploadPng(aliased, bob.token);
        const base = `${s3.endpoint}/${aliasBucket.name}/`;
        assert.ok(media.url.startsWith(`${base}media_attachments/files/`), media.url);
        const key = media.url.slice(base.length);
        const old = await aliased.request(`/system/${key}`, { redirect: "manual" });
        assert.equal(old.status, 301);
        assert.equal(old.headers.get("location"), media.url);
        // Pages may show images from the alias host, the signed-in ones too.
        const page = await aliased.request("/auth/sign_in");
        await page.body?.cancel();
        assert.match(
          page.headers.get("content-security-policy") ?? "",
          new RegExp(`img-src [^;]* ${s3.endpoint.replaceAll(".", "\\.")}(;|$)`),
        );
        // The alias host (here the bucket's own anonymous URL) serves the object.
        const direct = await fetch(media.url);
        assert.equal(direct.status, 200);
        assert.deepEqual(await bytesOf(direct), (await aliasBucket.object(key))!.bytes);
      } finally {
        await aliased.close();
      }
    });

    await t.step("a bucket that is down: 503 with Mastodon's message, no row", async () => {
      const count = async () =>
        (await server.rookery.ctx.database.db.select({ id: mediaAttachments.id })
          .from(mediaAttachments).where(eq(mediaAttachments.accountId, alice.account.id))).length;
      const rows = await count();
      const served = (await bucket.keys("media_attachments/"))[0];
      await s3.stop();
      const res = await upload(
        server,
        alice.token,
        form({ bytes: await image("png", 8, 8), type: "image/png" }),
      );
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("retry-after"), "30");
      assert.deepEqual(await res.json(), {
        error: "There was a temporary problem serving your request, please try again",
      });
      assert.equal(await count(), rows);
      const file = await server.request(`/system/${served}`);
      assert.equal(file.status, 503);
      await file.body?.cancel();
      const status = await authed(server, alice.token, "/api/v1/statuses", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ status: "text still works" }),
      });
      assert.equal(status.status, 200);
      await status.body?.cancel();
    });
  } finally {
    await instance?.close();
    await s3.stop();
  }
});

test("video on object storage: ffmpeg reads a scratch copy, the MP4 streams back", {
  ignore: !(await ffmpegAvailable()),
}, async () => {
  const s3 = await startS3Server();
  let instance: TestInstance | null = null;
  try {
    const bucket = await s3.bucket();
    instance = await startInstance({ listen: true, env: bucket.env });
    const { token } = await localUser(instance, "director");
    const res = await upload(
      instance,
      token,
      form({ bytes: await clip(true), type: "video/webm" }),
    );
    assert.equal(res.status, 202);
    const done = await waitProcessed(instance, token, (await res.json()).id);
    assert.equal(done.status, 200);
    const media = await done.json();
    assert.equal(media.type, "video");
    assert.match(media.url, /\/original-[0-9a-f]{16}\.mp4$/);
    const object = await bucket.object(keyOf(media.url));
    assert.equal(object?.contentType, "video/mp4");
    assert.ok(await bucket.has(keyOf(media.preview_url)));
    const ranged = await instance.request(media.url, { headers: { range: "bytes=4-7" } });
    assert.equal(ranged.status, 206);
    assert.equal(new TextDecoder().decode(await bytesOf(ranged)), "ftyp");
    assert.equal(existsSync(join(instance.dataDir, "media")), false);
  } finally {
    await instance?.close();
    await s3.stop();
  }
});
