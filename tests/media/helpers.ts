/** Shared set-up for the media tests: users, images made with sharp, uploads. */
import assert from "node:assert/strict";
import sharp from "sharp";
import { eq } from "drizzle-orm";
import { mediaAttachments, statuses } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import type { TestInstance } from "../harness.ts";
import { authed } from "../accounts/helpers.ts";
import { eventually } from "../fixtures/wait.ts";

export { authed, localUser } from "../accounts/helpers.ts";

/** A generated image (a gradient-free block of colour with a stripe, so blurhash has content). */
export async function image(
  format: "png" | "jpeg",
  width: number,
  height: number,
  options: { exif?: boolean; alpha?: boolean } = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const stripe = await sharp({
    create: {
      width: Math.max(1, Math.floor(width / 3)),
      height,
      channels: 3,
      background: { r: 20, g: 180, b: 60 },
    },
  }).png().toBuffer();
  let pipeline = sharp({
    create: {
      width,
      height,
      channels: options.alpha ? 4 : 3,
      background: { r: 200, g: 40, b: 90, alpha: options.alpha ? 0.5 : 1 },
    },
  }).composite([{ input: stripe, left: 0, top: 0 }]);
  pipeline = format === "png" ? pipeline.png() : pipeline.jpeg();
  if (options.exif) {
    pipeline = pipeline.withExif({ IFD0: { Copyright: "secret location", Artist: "someone" } });
  }
  return new Uint8Array(await pipeline.toBuffer());
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A PNG chunk: length, type, data and CRC, for PNGs made by hand. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** A multipart form with a file and other fields. */
export function form(
  file: { bytes: Uint8Array<ArrayBuffer>; type: string; name?: string; field?: string } | null,
  fields: Record<string, string> = {},
  thumbnail?: { bytes: Uint8Array<ArrayBuffer>; type: string },
): FormData {
  const body = new FormData();
  if (file) {
    body.append(
      file.field ?? "file",
      new File([file.bytes], file.name ?? "upload", { type: file.type }),
    );
  }
  if (thumbnail) {
    body.append("thumbnail", new File([thumbnail.bytes], "thumb", { type: thumbnail.type }));
  }
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  return body;
}

/** POST /api/v{1,2}/media. */
export function upload(
  instance: TestInstance,
  token: string,
  body: FormData,
  version: 1 | 2 = 2,
): Promise<Response> {
  return authed(instance, token, `/api/v${version}/media`, { method: "POST", body });
}

/** Fetches one of our media URLs; returns the response and its bytes. */
export async function fetchFile(instance: TestInstance, url: string) {
  assert.ok(url.startsWith(`${instance.origin}/system/media_attachments/files/`), url);
  const res = await instance.request(url);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, bytes };
}

/** A few bytes that start like an MP4 file (ftyp box, then an empty mdat). */
export function fakeMp4(): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(64);
  bytes.set([0, 0, 0, 0x18], 0);
  bytes.set(new TextEncoder().encode("ftypmp42\0\0\0\0mp42isom"), 4);
  bytes.set([0, 0, 0, 0x28], 24);
  bytes.set(new TextEncoder().encode("mdat"), 28);
  return bytes;
}

/** Marks an attachment as attached to a new status of its owner (as createStatus would). */
export async function attachToStatus(instance: TestInstance, mediaId: string): Promise<string> {
  const db = instance.rookery.ctx.database.db;
  const [media] = await db.select().from(mediaAttachments).where(eq(mediaAttachments.id, mediaId));
  const id = newId();
  await db.insert(statuses).values({
    id,
    uri: `${instance.origin}/statuses/${id}`,
    accountId: media.accountId,
    local: true,
    content: "<p>with media</p>",
  });
  await db.update(mediaAttachments).set({ statusId: id }).where(eq(mediaAttachments.id, mediaId));
  return id;
}

/** Polls GET /api/v1/media/:id while it answers 206 (background processing). */
export async function waitProcessed(
  instance: TestInstance,
  token: string,
  id: string,
): Promise<Response> {
  // Video and audio go through ffmpeg: a loaded machine may take a while.
  return await eventually(`media ${id} to be processed`, async () => {
    const res = await authed(instance, token, `/api/v1/media/${id}`);
    if (res.status !== 206) return res;
    await res.body?.cancel();
    return null;
  }, 60_000);
}
