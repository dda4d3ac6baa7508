/**
 * The server's own placeholder images: the default avatar and header that
 * Account entities point at, and the instance thumbnail and icons that the
 * instance API lists. Drawn once per process, served with long caching.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { encodePng, type Rgb, solidPng } from "../static/png.ts";

/** Paths (on the public origin) of the placeholder images. */
import { DEFAULT_AVATAR_PATH, DEFAULT_HEADER_PATH } from "../../actors/media/urls.ts";
export { DEFAULT_AVATAR_PATH, DEFAULT_HEADER_PATH };
export const DEFAULT_THUMBNAIL_PATH = "/instance/thumbnail.png";
/** Square icon sizes, as Mastodon lists its Android icons. */
export const ICON_SIZES = [36, 48, 72, 96, 144, 192, 256, 384, 512] as const;
export function iconPath(size: number): string {
  return `/instance/icons/${size}.png`;
}

const BACKGROUND: Rgb = [0xd9, 0xe1, 0xe8];
const FIGURE: Rgb = [0x9b, 0xae, 0xc8];
const BRAND: Rgb = [0x56, 0x3a, 0xcc];

/** A head-and-shoulders silhouette, like the usual default avatar. */
function drawAvatar(size: number): Uint8Array<ArrayBuffer> {
  const cx = size / 2;
  const head = { y: size * 0.4, r: size * 0.18 };
  const body = { y: size * 0.95, rx: size * 0.34, ry: size * 0.3 };
  return encodePng(size, size, (x, y) => {
    const dh = (x - cx) ** 2 + (y - head.y) ** 2;
    const db = ((x - cx) / body.rx) ** 2 + ((y - body.y) / body.ry) ** 2;
    return dh <= head.r ** 2 || db <= 1 ? FIGURE : BACKGROUND;
  });
}

/** A filled circle on the brand colour: the instance icon. */
function drawIcon(size: number): Uint8Array<ArrayBuffer> {
  const c = size / 2;
  const r = size * 0.3;
  return encodePng(
    size,
    size,
    (x, y) => ((x - c) ** 2 + (y - c) ** 2 <= r * r ? BACKGROUND : BRAND),
  );
}

/** Draws each image once per app (the routes below keep them). */
function drawnOnce(): (
  key: string,
  draw: () => Uint8Array<ArrayBuffer>,
) => Uint8Array<ArrayBuffer> {
  const drawn = new Map<string, Uint8Array<ArrayBuffer>>();
  return (key, draw) => {
    let png = drawn.get(key);
    if (!png) drawn.set(key, png = draw());
    return png;
  };
}

function png(bytes: Uint8Array<ArrayBuffer>): Response {
  return new Response(bytes, {
    headers: {
      "Content-Type": "image/png",
      "Cache-Control": "public, max-age=86400",
      // As for uploaded files: never sniffed, never a document that could run.
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      // Web clients on other origins read avatars (default ones too) across origins.
      "Access-Control-Allow-Origin": "*",
    },
  });
}

/** Routes serving the placeholder images. */
export function staticImageRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const cached = drawnOnce();
  app.get(DEFAULT_AVATAR_PATH, () => png(cached("avatar", () => drawAvatar(400))));
  app.get(DEFAULT_HEADER_PATH, () => png(cached("header", () => solidPng(1500, 500, FIGURE))));
  app.get(DEFAULT_THUMBNAIL_PATH, () => png(cached("thumbnail", () => solidPng(1200, 630, BRAND))));
  app.get("/instance/icons/:file", (c) => {
    const match = /^(\d+)\.png$/.exec(c.req.param("file"));
    const size = match ? Number(match[1]) : NaN;
    if (!(ICON_SIZES as readonly number[]).includes(size)) return c.text("Not Found", 404);
    return png(cached(`icon${size}`, () => drawIcon(size)));
  });
  return app;
}
