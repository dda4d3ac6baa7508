/** Uploading images: processing with sharp, meta, blurhash, serving, and refusals. */
import assert from "node:assert/strict";
import sharp from "sharp";
import { sql } from "drizzle-orm";
import { isBlurhashValid } from "blurhash";
import { json, startInstance, test, type TestInstance } from "../harness.ts";
import { authed, fakeMp4, fetchFile, form, image, localUser, pngChunk, upload } from "./helpers.ts";
import { multipartBody, untypedFilePart } from "../fixtures/multipart.ts";

const INVALID = "Validation failed: File content type is invalid, File is invalid";

/** A PNG header claiming a canvas of width × height (a decompression bomb's shape). */
function hugePng(width: number, height: number): Uint8Array<ArrayBuffer> {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", new Uint8Array([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])),
    pngChunk("IEND", new Uint8Array()),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

test("PNG and JPEG uploads: sizes, meta, blurhash, focus, EXIF stripped, files served", async () => {
  const instance = await startInstance();
  try {
    const { token } = await localUser(instance, "photographer");

    const res = await upload(
      instance,
      token,
      form({ bytes: await image("png", 800, 600), type: "image/png" }, {
        description: "A red block with a green stripe",
        focus: "-0.5,0.25",
      }),
    );
    const png = await json(res);
    assert.equal(res.status, 200, JSON.stringify(png));
    assert.match(png.id, /^\d+$/);
    assert.equal(png.type, "image");
    assert.equal(png.description, "A red block with a green stripe");
    assert.deepEqual(png.meta.original, {
      width: 800,
      height: 600,
      size: "800x600",
      aspect: 4 / 3,
    });
    assert.deepEqual(png.meta.focus, { x: -0.5, y: 0.25 });
    const small = png.meta.small;
    assert.ok(small.width * small.height <= 230_400, JSON.stringify(small));
    assert.ok(small.width >= 500, JSON.stringify(small));
    assert.equal(small.size, `${small.width}x${small.height}`);
    assert.ok(Math.abs(small.aspect - 4 / 3) < 0.01);
    assert.ok(isBlurhashValid(png.blurhash).result, png.blurhash);
    assert.equal(png.blurhash.length, 36, "4×4 components");
    assert.equal(png.remote_url, null);
    assert.notEqual(png.url, png.preview_url);

    const original = await fetchFile(instance, png.url);
    assert.equal(original.res.status, 200);
    assert.equal(original.res.headers.get("content-type"), "image/png");
    assert.equal(original.res.headers.get("x-content-type-options"), "nosniff");
    assert.match(original.res.headers.get("cache-control") ?? "", /max-age=31536000/);
    const originalMeta = await sharp(original.bytes).metadata();
    assert.equal(originalMeta.width, 800);
    assert.equal(originalMeta.height, 600);
    const preview = await fetchFile(instance, png.preview_url);
    assert.equal(preview.res.headers.get("content-type"), "image/png");
    assert.equal((await sharp(preview.bytes).metadata()).width, small.width);

    // JPEG with EXIF: kept at its size, metadata gone; the v1 alias answers 200 too.
    const jpegRes = await upload(
      instance,
      token,
      form({ bytes: await image("jpeg", 1200, 900, { exif: true }), type: "image/jpeg" }),
      1,
    );
    const jpeg = await json(jpegRes);
    assert.equal(jpegRes.status, 200, JSON.stringify(jpeg));
    assert.equal(jpeg.description, null);
    assert.equal(jpeg.meta.original.size, "1200x900");
    assert.equal(jpeg.meta.focus, undefined);
    assert.ok(jpeg.blurhash);
    const file = await fetchFile(instance, jpeg.url);
    assert.equal(file.res.headers.get("content-type"), "image/jpeg");
    const meta = await sharp(file.bytes).metadata();
    assert.equal(meta.format, "jpeg");
    assert.equal(meta.width, 1200);
    assert.equal(meta.exif, undefined, "EXIF is stripped");
    assert.ok(!new TextDecoder("latin1").decode(file.bytes).includes("secret location"));

    // A client's file name or type never shapes the stored path.
    const named = await json(
      await upload(
        instance,
        token,
        form({ bytes: await image("png", 10, 10), type: "image/png", name: "../../etc/passwd" }),
      ),
    );
    assert.match(
      named.url,
      /\/system\/media_attachments\/files\/(\d{3}\/){7}original-[0-9a-f]{16}\.png$/,
    );

    // Paths the store could not have written are never looked up.
    for (
      const path of [
        "/system/media_attachments/files/../../../etc/passwd",
        "/system/media_attachments/files/%2e%2e/%2e%2e/db",
        `${new URL(png.url).pathname.replace(/\.png$/, ".txt")}`,
        `${new URL(png.url).pathname.replace(/original-/, "other-")}`,
      ]
    ) {
      const r = await instance.request(path);
      await r.body?.cancel();
      assert.equal(r.status, 404, path);
    }
  } finally {
    await instance.close({ destroy: true });
  }
});

test("refused uploads: fake images, wrong types, bad focus, long descriptions, sizes", async () => {
  const instance = await startInstance({ env: { MAX_BODY_BYTES: String(20 * 1024 * 1024) } });
  try {
    const { token } = await localUser(instance, "forger");
    const png = await image("png", 40, 30);
    const refuse = async (body: FormData, status: number, error: string, label: string) => {
      const res = await upload(instance, token, body);
      const out = await json(res);
      assert.equal(res.status, status, `${label}: ${JSON.stringify(out)}`);
      assert.equal(out.error, error, label);
    };
    const text = new TextEncoder().encode("this is not an image, honestly, not at all");
    await refuse(form({ bytes: text, type: "image/png" }), 422, INVALID, "text as PNG");
    // A PNG cut in half: recognised by its header, refused by the decoder.
    const full = await image("png", 400, 300);
    await refuse(
      form({ bytes: full.slice(0, Math.floor(full.length / 2)), type: "image/png" }),
      422,
      INVALID,
      "truncated PNG",
    );
    await refuse(
      form(null, { description: "x" }),
      422,
      "Validation failed: File can't be blank",
      "no file",
    );
    await refuse(
      form({ bytes: png, type: "image/png" }, { focus: "2,0" }),
      422,
      "Validation failed: Focus is invalid",
      "focus out of range",
    );
    await refuse(
      form({ bytes: png, type: "image/png" }, { focus: "left" }),
      422,
      "Validation failed: Focus is invalid",
      "focus not numbers",
    );
    await refuse(
      form({ bytes: png, type: "image/png" }, { description: "d".repeat(10_001) }),
      422,
      "Validation failed: Description is too long (maximum is 10000 characters)",
      "description",
    );
    await refuse(
      form({ bytes: hugePng(20_000, 20_000), type: "image/png" }),
      422,
      "Validation failed: File dimensions are too large (at most 33177600 pixels)",
      "decompression bomb",
    );
    await refuse(
      form({ bytes: png, type: "image/png" }, {}, { bytes: text, type: "image/png" }),
      422,
      "Validation failed: Thumbnail content type is invalid, Thumbnail is invalid",
      "fake thumbnail",
    );
    // Over the image limit (16 MB) but under the body limit: Mastodon's 422.
    const big = new Uint8Array(16 * 1024 * 1024 + 1);
    big.set(png);
    await refuse(
      form({ bytes: big, type: "image/png" }),
      422,
      "Validation failed: File file size must be less than 16 MB",
      "image over 16 MB",
    );
    // Over the body limit: the parser's 413, before any file is read.
    await refuse(
      form({ bytes: new Uint8Array(21 * 1024 * 1024), type: "video/mp4" }),
      413,
      "Request entity too large",
      "body over the limit",
    );
    // Nothing was stored by any of these.
    const rows = await instance.rookery.ctx.database.rows(
      sql`SELECT count(*)::int AS n FROM media_attachments`,
    );
    assert.equal((rows[0] as { n: number }).n, 0);
  } finally {
    await instance.close({ destroy: true });
  }
});

/** Bytes that start as `head` (Latin-1 text), padded to `length`. */
function bytesOf(head: string | number[], length = 256): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  out.set(typeof head === "string" ? [...head].map((ch) => ch.charCodeAt(0)) : head);
  return out;
}

/** An ISO base media file's first box (`ftyp`) with the given major brand. */
function isoFile(brand: string): Uint8Array<ArrayBuffer> {
  return bytesOf(`\0\0\0\x18ftyp${brand}\0\0\0\0${brand}isom`);
}

/** A Matroska (WebM) header whose track has the given codec id. */
function matroska(codec: string): Uint8Array<ArrayBuffer> {
  return bytesOf(`\x1a\x45\xdf\xa3\x9f\x42\x82\x84webm\x16\x54\xae\x6b\x86${codec}`);
}

test("the bytes decide the type: none declared, application/octet-stream or a wrong one", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const { token } = await localUser(instance, "tooter");
    const png = await image("png", 40, 30);
    const jpeg = await image("jpeg", 40, 30);
    // [label, bytes, declared type (null: a part without Content-Type, as toot sends), type]
    const accepted: [string, Uint8Array<ArrayBuffer>, string | null, string][] = [
      ["PNG, no type", png, null, "image"],
      ["JPEG as octet-stream", jpeg, "application/octet-stream", "image"],
      ["PNG declared as video", png, "video/mp4", "image"],
      ["MP4, no type", fakeMp4(), null, "video"],
      ["MP4 declared as an image", fakeMp4(), "image/png", "video"],
      ["M4A, no type", isoFile("M4A "), null, "audio"],
      [
        "WAV as octet-stream",
        bytesOf("RIFF\x24\0\0\0WAVEfmt "),
        "application/octet-stream",
        "audio",
      ],
      ["MP3 declared as video", bytesOf("ID3\x04\0\0\0\0\0\0"), "video/mp4", "audio"],
      ["FLAC, no type", bytesOf("fLaC\0\0\0\x22"), null, "audio"],
      ["Ogg Opus, no type", bytesOf("OggS\0\x02\0\0\0\0\0\0\0\0OpusHead"), null, "audio"],
      ["Ogg Theora, no type", bytesOf("OggS\0\x02\0\0\0\0\0\0\0\0\x80theora"), null, "video"],
      ["WebM VP9, no type", matroska("V_VP9"), null, "video"],
      ["WebM Opus, no type", matroska("A_OPUS"), null, "audio"],
      ["WebM Opus declared as video", matroska("A_OPUS"), "video/webm", "video"],
    ];
    for (const [label, bytes, type, expected] of accepted) {
      const res = await sendUpload(instance, token, bytes, type);
      const media = await json(res);
      assert.equal(
        res.status,
        expected === "image" ? 200 : 202,
        `${label}: ${JSON.stringify(media)}`,
      );
      assert.equal(media.type, expected, label);
    }
    const stored = await json(await sendUpload(instance, token, jpeg, "application/octet-stream"));
    const file = await fetchFile(instance, stored.url);
    assert.equal(file.res.headers.get("content-type"), "image/jpeg");

    const refused: [string, Uint8Array<ArrayBuffer>, string | null][] = [
      ["SVG", bytesOf('<svg xmlns="http://www.w3.org/2000/svg"/>'), "image/svg+xml"],
      ["SVG as octet-stream", bytesOf("<svg/><!-- padding to twelve -->"), null],
      ["text as octet-stream", new TextEncoder().encode("just some words here"), null],
      ["PDF declared as an image", bytesOf("%PDF-1.7\n%\xe2\xe3"), "image/jpeg"],
      ["HEIC photo", isoFile("heic"), "image/heic"],
      ["too short to tell", new Uint8Array([0xff, 0xd8, 0xff]), "image/jpeg"],
    ];
    for (const [label, bytes, type] of refused) {
      const res = await sendUpload(instance, token, bytes, type);
      assert.equal(res.status, 422, label);
      assert.equal((await json(res)).error, INVALID, label);
    }
  } finally {
    await instance.close({ destroy: true });
  }
});

/** POST /api/v2/media with one file part, typed or (type null) as Python's requests sends it. */
function sendUpload(
  instance: TestInstance,
  token: string,
  bytes: Uint8Array<ArrayBuffer>,
  type: string | null,
): Promise<Response> {
  if (type !== null) return upload(instance, token, form({ bytes, type, name: "upload.bin" }));
  const { body, type: contentType } = multipartBody([untypedFilePart("file", "upload", bytes)]);
  return authed(instance, token, "/api/v2/media", {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
}
