/** Shared set-up for the custom emoji tests: small images made with sharp, emoji added. */
import sharp from "sharp";
import type { TestInstance } from "../harness.ts";
import { addLocalEmoji } from "../../actors/emoji/manage.ts";

/** A solid square PNG. */
export async function pngImage(color = "#ff8800", size = 32): Promise<Uint8Array> {
  return new Uint8Array(
    await sharp({ create: { width: size, height: size, channels: 4, background: color } })
      .png().toBuffer(),
  );
}

/** A solid square GIF. */
export async function gifImage(color = "#0088ff", size = 32): Promise<Uint8Array> {
  return new Uint8Array(
    await sharp({ create: { width: size, height: size, channels: 4, background: color } })
      .gif().toBuffer(),
  );
}

/** A PNG of noise, so it cannot compress below `bytes`. */
export async function bigPng(bytes: number): Promise<Uint8Array> {
  const side = Math.ceil(Math.sqrt(bytes / 3)) + 8;
  const raw = new Uint8Array(side * side * 3);
  for (let i = 0; i < raw.length; i += 65_536) {
    crypto.getRandomValues(raw.subarray(i, i + 65_536));
  }
  return new Uint8Array(
    await sharp(raw, { raw: { width: side, height: side, channels: 3 } }).png().toBuffer(),
  );
}

/** Adds a local emoji on an instance (as the admin command does). */
export async function addEmoji(
  instance: TestInstance,
  shortcode: string,
  options: { image?: Uint8Array; category?: string; unlisted?: boolean } = {},
) {
  const { database, config, media } = instance.rookery.ctx;
  return await addLocalEmoji(database.db, { origin: config.origin, media }, {
    shortcode,
    image: options.image ?? await pngImage(),
    category: options.category,
    visibleInPicker: !options.unlisted,
  });
}

/** Fetches an image URL: its status, content type and size. */
export async function fetchImage(instance: TestInstance, url: string) {
  const res = await instance.request(url);
  const body = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get("content-type"), size: body.length, body };
}
