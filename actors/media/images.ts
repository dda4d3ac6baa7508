/**
 * Still images with sharp: the stored original (re-encoded, so EXIF, GPS
 * and every other metadata block is gone, and turned upright), the preview
 * ("small", about 640×360 pixels), their geometry for `meta`, and the
 * blurhash that clients paint while the preview loads.
 */
import { loadSharp, type Sharp } from "./sharp.ts";

type Metadata = Awaited<ReturnType<Sharp["metadata"]>>;
import { encode as encodeBlurhash } from "blurhash";
import { IMAGE_MATRIX_LIMIT } from "./profile_media.ts";
import { MediaRejected } from "./errors.ts";

/** Pixels of a preview, as Mastodon's `small` style (640×360). */
export const PREVIEW_PIXELS = 230_400;

/**
 * The largest decoded image we accept at all: twice the advertised matrix
 * limit. Between the two, the original is scaled down to the limit; past
 * it, the upload is refused before decoding (a small PNG can claim a huge
 * canvas).
 */
export const MAX_INPUT_PIXELS = IMAGE_MATRIX_LIMIT * 2;

/** Width, height, "WxH" and aspect ratio, as Mastodon's `meta` shows them. */
export interface Geometry {
  width: number;
  height: number;
  size: string;
  aspect: number;
}

/** One encoded file of an image. */
export interface EncodedImage {
  bytes: Uint8Array;
  extension: "jpg" | "png" | "gif" | "webp";
  geometry: Geometry;
}

/** The result of processing an uploaded image. */
export interface ProcessedImage {
  original: EncodedImage;
  small: EncodedImage;
  blurhash: string;
}

/** Mastodon's geometry object. */
export function geometry(width: number, height: number): Geometry {
  return { width, height, size: `${width}x${height}`, aspect: width / height };
}

/** The size that fits `maxPixels` keeping the aspect ratio (never larger than the input). */
function fitPixels(width: number, height: number, maxPixels: number) {
  if (width * height <= maxPixels) return { width, height };
  const scale = Math.sqrt(maxPixels / (width * height));
  return {
    width: Math.max(1, Math.floor(width * scale)),
    height: Math.max(1, Math.floor(height * scale)),
  };
}

interface Probe {
  format: string;
  width: number;
  height: number;
  hasAlpha: boolean;
  animated: boolean;
}

async function probe(input: Uint8Array): Promise<Probe> {
  let meta: Metadata;
  const sharp = await loadSharp();
  try {
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    throw new MediaRejected("type");
  }
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height || !meta.format) throw new MediaRejected("type");
  if (width * height > MAX_INPUT_PIXELS) throw new MediaRejected("dimensions");
  return {
    format: meta.format,
    width,
    height,
    hasAlpha: meta.hasAlpha ?? false,
    animated: (meta.pages ?? 1) > 1,
  };
}

function encodeAs(pipeline: Sharp, extension: EncodedImage["extension"]): Sharp {
  switch (extension) {
    case "jpg":
      return pipeline.flatten({ background: "#ffffff" }).jpeg({ quality: 90 });
    case "webp":
      return pipeline.webp({ quality: 90 });
    case "gif":
      return pipeline.gif();
    default:
      return pipeline.png();
  }
}

async function render(
  input: Uint8Array,
  target: { width: number; height: number },
  extension: EncodedImage["extension"],
  animated: boolean,
): Promise<EncodedImage> {
  const sharp = await loadSharp();
  const pipeline = sharp(input, {
    limitInputPixels: MAX_INPUT_PIXELS,
    failOn: "error",
    animated,
  })
    .autoOrient() // upright before the EXIF orientation tag is dropped with the rest
    .resize(target.width, target.height, { fit: "fill" });
  const { data, info } = await encodeAs(pipeline, extension).toBuffer({ resolveWithObject: true });
  // Animated output reports the height of all frames stacked; the target is one frame.
  return {
    bytes: new Uint8Array(data),
    extension,
    geometry: geometry(info.width, animated ? target.height : info.height),
  };
}

/** The blurhash (4×4 components, as Mastodon) of an encoded image. */
export async function blurhashOf(bytes: Uint8Array): Promise<string> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(bytes, { failOn: "error" })
    .resize(32, 32, { fit: "inside" })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return encodeBlurhash(new Uint8ClampedArray(data), info.width, info.height, 4, 4);
}

/**
 * Processes an uploaded still (or animated GIF) image. JPEG, PNG, WebP and
 * GIF keep their format; AVIF becomes JPEG, or PNG when it has
 * transparency. The original keeps its size unless it exceeds the matrix
 * limit. Throws {@link MediaRejected} for what cannot be decoded.
 */
export async function processImage(input: Uint8Array): Promise<ProcessedImage> {
  const info = await probe(input);
  const kept: Record<string, EncodedImage["extension"]> = {
    jpeg: "jpg",
    png: "png",
    webp: "webp",
    gif: "gif",
  };
  const originalExtension = kept[info.format] ?? (info.hasAlpha ? "png" : "jpg");
  const smallExtension = originalExtension === "gif" ? "png" : originalExtension;
  try {
    const original = await render(
      input,
      fitPixels(info.width, info.height, IMAGE_MATRIX_LIMIT),
      originalExtension,
      info.animated && originalExtension === "gif",
    );
    const small = await render(
      input,
      fitPixels(info.width, info.height, PREVIEW_PIXELS),
      smallExtension,
      false,
    );
    return { original, small, blurhash: await blurhashOf(small.bytes) };
  } catch (error) {
    if (error instanceof MediaRejected) throw error;
    throw new MediaRejected("corrupt");
  }
}

/**
 * Processes a custom thumbnail (or a frame taken from a video) into a
 * preview and its blurhash.
 */
export async function processPreview(input: Uint8Array): Promise<
  ProcessedImage["small"] & {
    blurhash: string;
  }
> {
  const info = await probe(input);
  const extension = info.format === "png" || info.hasAlpha ? "png" : "jpg";
  try {
    const small = await render(
      input,
      fitPixels(info.width, info.height, PREVIEW_PIXELS),
      extension,
      false,
    );
    return { ...small, blurhash: await blurhashOf(small.bytes) };
  } catch (error) {
    if (error instanceof MediaRejected) throw error;
    throw new MediaRejected("corrupt");
  }
}
