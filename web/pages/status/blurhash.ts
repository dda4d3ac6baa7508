/**
 * A hidden attachment's blurhash as a tiny PNG `data:` URL (design 35
 * §8.3): the pages' CSP forbids `style=` (so no CSS gradient per image) but
 * allows `data:` images. Decoded at 16 pixels on the long side (the blur is
 * in the data; CSS scales it), written as an 8-bit RGB PNG with one IDAT:
 * about 0.2 ms and 750 characters each, so only hidden media get one.
 */
import { decode, isBlurhashValid } from "blurhash";
import { deflateSync } from "node:zlib";
import { Buffer } from "node:buffer";

/** The long side of the placeholder, in pixels. */
const LONG_SIDE = 16;

/** CRC-32 (PNG's, polynomial 0xEDB88320) of the bytes. */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** One PNG chunk: length, type, data, CRC of type and data. */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** The placeholder's size for an image of `width`×`height` (4:3 when unknown). */
export function placeholderSize(
  width?: number,
  height?: number,
): { width: number; height: number } {
  const aspect = width && height && width > 0 && height > 0 ? width / height : 4 / 3;
  return aspect >= 1
    ? { width: LONG_SIDE, height: Math.max(4, Math.round(LONG_SIDE / aspect)) }
    : { width: Math.max(4, Math.round(LONG_SIDE * aspect)), height: LONG_SIDE };
}

/** The `data:` URL of `hash` decoded at `size`, or null when it does not decode. */
export function blurhashDataUrl(
  hash: string,
  size: { width: number; height: number },
): string | null {
  if (!isBlurhashValid(hash).result) return null;
  const { width, height } = size;
  const rgba = decode(hash, width, height);
  // Each row: filter type 0, then RGB triples.
  const rows = new Uint8Array(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    for (let x = 0; x < width; x++) {
      const from = (y * width + x) * 4;
      rows.set(rgba.subarray(from, from + 3), row + 1 + x * 3);
    }
  }
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter method, no interlace
  const png = Buffer.concat([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", new Uint8Array(deflateSync(rows))),
    chunk("IEND", new Uint8Array()),
  ]);
  return `data:image/png;base64,${png.toString("base64")}`;
}
