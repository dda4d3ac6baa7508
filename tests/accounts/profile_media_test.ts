/** Avatars and headers: processing with sharp, serving, replacing, deleting, refusing. */
import assert from "node:assert/strict";
import sharp from "sharp";
import { json, startInstance, test, type TestInstance } from "../harness.ts";
import { authed, localUser, updateCredentials } from "./helpers.ts";
import { multipartBody, untypedFilePart } from "../fixtures/multipart.ts";

async function image(
  format: "png" | "jpeg",
  width: number,
  height: number,
  exif = false,
): Promise<Uint8Array<ArrayBuffer>> {
  let pipeline = sharp({
    create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } },
  });
  pipeline = format === "png" ? pipeline.png() : pipeline.jpeg();
  if (exif) pipeline = pipeline.withExif({ IFD0: { Copyright: "secret location" } });
  return new Uint8Array(await pipeline.toBuffer());
}

function upload(field: string, bytes: Uint8Array<ArrayBuffer>, type: string, name = "pic") {
  const form = new FormData();
  form.append(field, new File([bytes], name, { type }));
  return form;
}

async function fetchImage(instance: TestInstance, url: string) {
  assert.ok(url.startsWith(`${instance.origin}/system/accounts/`), url);
  const res = await instance.request(url);
  assert.equal(res.status, 200, url);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, bytes, meta: await sharp(bytes).metadata() };
}

test("a PNG avatar and a JPEG header are cropped, stripped, stored and served", async () => {
  const instance = await startInstance();
  try {
    const { token } = await localUser(instance, "painter");
    const res = await updateCredentials(
      instance,
      token,
      upload("avatar", await image("png", 800, 600), "image/png"),
    );
    const me = await json(res);
    assert.equal(res.status, 200, JSON.stringify(me));
    assert.equal(me.avatar, me.avatar_static);
    const avatar = await fetchImage(instance, me.avatar);
    assert.equal(avatar.res.headers.get("content-type"), "image/png");
    assert.match(avatar.res.headers.get("cache-control") ?? "", /max-age=31536000/);
    assert.equal(avatar.res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(avatar.meta.format, "png");
    assert.equal(avatar.meta.width, 400);
    assert.equal(avatar.meta.height, 400);

    const withHeader = await json(
      await updateCredentials(
        instance,
        token,
        upload("header", await image("jpeg", 2000, 1000, true), "image/jpeg"),
      ),
    );
    assert.equal(withHeader.avatar, me.avatar, "the avatar stays");
    const header = await fetchImage(instance, withHeader.header);
    assert.equal(header.res.headers.get("content-type"), "image/jpeg");
    assert.equal(header.meta.width, 1500);
    assert.equal(header.meta.height, 500);
    assert.equal(header.meta.exif, undefined, "EXIF is stripped");

    // A new avatar replaces the file; the old URL is gone.
    const replaced = await json(
      await updateCredentials(
        instance,
        token,
        upload("avatar", await image("jpeg", 300, 500), "image/jpeg"),
      ),
    );
    assert.notEqual(replaced.avatar, me.avatar);
    const old = await instance.request(me.avatar);
    assert.equal(old.status, 404);
    await old.body?.cancel();
    const small = await fetchImage(instance, replaced.avatar);
    assert.equal(small.meta.width, 400, "small images are scaled up to the avatar size");

    // The actor document points at the images.
    const actor = await json(
      await instance.request("/users/painter", {
        headers: { accept: "application/activity+json" },
      }),
    );
    assert.equal(actor.icon.url, replaced.avatar);
    assert.equal(actor.icon.mediaType, "image/jpeg");
    assert.equal(actor.image.url, withHeader.header);

    // Deleting: the default image comes back, the file goes.
    const deleted = await authed(instance, token, "/api/v1/profile/avatar", { method: "DELETE" });
    const afterDelete = await json(deleted);
    assert.equal(deleted.status, 200);
    assert.equal(afterDelete.avatar, `${instance.origin}/avatars/original/missing.png`);
    assert.ok(afterDelete.source, "a CredentialAccount is returned");
    assert.equal(afterDelete.header, withHeader.header);
    const gone = await instance.request(replaced.avatar);
    assert.equal(gone.status, 404);
    await gone.body?.cancel();
    const twice = await authed(instance, token, "/api/v1/profile/avatar", { method: "DELETE" });
    assert.equal(twice.status, 200, "deleting again is fine");
    await twice.body?.cancel();
    const headerDeleted = await json(
      await authed(instance, token, "/api/v1/profile/header", { method: "DELETE" }),
    );
    assert.equal(headerDeleted.header, `${instance.origin}/headers/original/missing.png`);

    // A file part without a declared type (Python's requests, as toot sends it): the bytes decide.
    const { body, type } = multipartBody([
      untypedFilePart("avatar", "me", await image("png", 50, 50)),
    ]);
    const untyped = await authed(instance, token, "/api/v1/accounts/update_credentials", {
      method: "PATCH",
      headers: { "content-type": type },
      body,
    });
    const withUntyped = await json(untyped);
    assert.equal(untyped.status, 200, JSON.stringify(withUntyped));
    assert.equal((await fetchImage(instance, withUntyped.avatar)).meta.format, "png");
  } finally {
    await instance.close({ destroy: true });
  }
});

test("non-images, corrupt and oversized files are refused with 422 and change nothing", async () => {
  const instance = await startInstance();
  try {
    const { token } = await localUser(instance, "careful");
    const before = await json(await authed(instance, token, "/api/v1/accounts/verify_credentials"));
    const png = await image("png", 64, 64);
    const corrupt = png.slice(0, 60);
    const cases: [Uint8Array<ArrayBuffer>, string][] = [
      [new TextEncoder().encode("just text, no image"), "image/png"],
      [corrupt, "image/png"],
      [new Uint8Array(0), "image/png"],
    ];
    for (const [bytes, type] of cases) {
      const form = upload("avatar", bytes, type);
      form.append("display_name", "Should not stick");
      const res = await updateCredentials(instance, token, form);
      const body = await json(res);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.match(body.error, /^Validation failed: Avatar /);
      assert.equal(body.details.avatar[0].error, "ERR_INVALID");
    }
    // A file where a string belongs, and a string where a file belongs.
    const misplaced = await updateCredentials(instance, token, { avatar: "not a file" });
    assert.equal(misplaced.status, 422);
    await misplaced.body?.cancel();

    const after = await json(await authed(instance, token, "/api/v1/accounts/verify_credentials"));
    assert.deepEqual(after, before);
    let stored = 0;
    try {
      for await (const _ of Deno.readDir(`${instance.dataDir}/media/accounts/avatars`)) stored++;
    } catch (error) {
      // No folder: nothing was stored. Anything else is a failure.
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    assert.equal(stored, 0, "no file is left behind");
  } finally {
    await instance.close({ destroy: true });
  }
});

test("images over the size limit are refused", async () => {
  const instance = await startInstance();
  try {
    (instance.rookery.ctx.config.limits as { imageSizeLimit: number }).imageSizeLimit = 1000;
    const { token } = await localUser(instance, "heavy");
    const res = await updateCredentials(
      instance,
      token,
      upload("header", await image("png", 500, 500), "image/png"),
    );
    const body = await json(res);
    assert.equal(res.status, 422, JSON.stringify(body));
    assert.match(body.details.header[0].description, /file size/);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("the media route serves only stored names", async () => {
  const instance = await startInstance();
  try {
    // The positive control: a stored avatar is served, so the 404s below
    // are the route refusing, not the route missing.
    const { token } = await localUser(instance, "served");
    const uploaded = await updateCredentials(
      instance,
      token,
      upload("avatar", await image("png", 40, 40), "image/png"),
    );
    const account = await json(uploaded);
    assert.equal(uploaded.status, 200, JSON.stringify(account));
    const stored = new URL(account.avatar);
    const served = await instance.request(stored.pathname);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get("content-type"), "image/png");
    await served.body?.cancel();
    const storedName = stored.pathname.split("/").pop()!;
    for (
      const path of [
        // The stored file under another account, kind or extension.
        stored.pathname.replace(/\/[^/]+\/[^/]+$/, `/1/${storedName}`),
        stored.pathname.replace("/avatars/", "/headers/"),
        stored.pathname.replace(/\.png$/, ".exe"),
        "/system/accounts/avatars/1/../../../db",
        "/system/accounts/avatars/1/%2e%2e%2f%2e%2e%2fconfig.png",
        "/system/accounts/avatars/..%2F..%2F/0123456789abcdef0123456789abcdef.png",
        "/system/accounts/other/1/0123456789abcdef0123456789abcdef.png",
        "/system/accounts/avatars/1/0123456789abcdef0123456789abcdef.exe",
        "/system/accounts/avatars/1/0123456789abcdef0123456789abcdef.png",
      ]
    ) {
      const res = await instance.request(path);
      assert.equal(res.status, 404, path);
      await res.body?.cancel();
    }
  } finally {
    await instance.close({ destroy: true });
  }
});
