/**
 * What media we accept, recognised by the bytes, not by the client's word.
 *
 * A client's content type only picks the family it claims (image, video,
 * audio); the file's first bytes must then be a container of a format we
 * handle, in that family. A text file sent as `image/png`, a PNG sent as
 * `video/mp4`, or an HEIC photo (sharp's build here cannot decode HEVC) are
 * all refused the same way, with Mastodon's "content type is invalid".
 */

/** The kinds of stored originals, by how they are processed. */
export type MediaFamily = "image" | "video" | "audio";

/** A format recognised from a file's first bytes. */
export interface SniffedFormat {
  family: MediaFamily;
  /** What sharp or ffmpeg is asked to read; also the stored extension of kept originals. */
  extension: string;
}

/**
 * The MIME types we accept (and the instance advertises), in Mastodon's
 * order. HEIC/HEIF are not here: sharp's prebuilt libvips decodes AVIF but
 * not HEVC, so such an upload could only fail.
 */
export const ACCEPTED_MIME_TYPES: readonly string[] = [
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
  "image/avif",
  "video/webm",
  "video/mp4",
  "video/quicktime",
  "video/ogg",
  "audio/wave",
  "audio/wav",
  "audio/x-wav",
  "audio/x-pn-wave",
  "audio/vnd.wave",
  "audio/ogg",
  "audio/vorbis",
  "audio/mpeg",
  "audio/mp3",
  "audio/webm",
  "audio/flac",
  "audio/aac",
  "audio/m4a",
  "audio/x-m4a",
  "audio/mp4",
  "audio/3gpp",
  "video/x-ms-asf",
];

/** Content types of every extension the store writes (originals kept as is included). */
export const STORED_CONTENT_TYPES: Readonly<Record<string, string>> = {
  jpg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
  ogv: "video/ogg",
  asf: "video/x-ms-asf",
  m4a: "audio/mp4",
  "3gp": "audio/3gpp",
  mp3: "audio/mpeg",
  oga: "audio/ogg",
  weba: "audio/webm",
  wav: "audio/wav",
  flac: "audio/flac",
  aac: "audio/aac",
};

/** The family a client's content type claims, or null when we do not accept it. */
export function claimedFamily(contentType: string): MediaFamily | null {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (!ACCEPTED_MIME_TYPES.includes(type)) return null;
  return type.startsWith("image/") ? "image" : type.startsWith("audio/") ? "audio" : "video";
}

function ascii(bytes: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(start, start + length));
}

function startsWith(bytes: Uint8Array, prefix: number[], offset = 0): boolean {
  return prefix.every((b, i) => bytes[offset + i] === b);
}

/** ISO base media (MP4, QuickTime, 3GP, AVIF, HEIC): the major brand of the `ftyp` box. */
function isoBrand(bytes: Uint8Array): string | null {
  if (bytes.length >= 12 && ascii(bytes, 4, 4) === "ftyp") return ascii(bytes, 8, 4);
  return null;
}

/**
 * Recognises a file by its first bytes, within the family the client
 * claimed (WebM, Ogg and MP4 hold audio or video alike; the claim decides).
 * Returns null for anything else.
 */
export function sniffFormat(bytes: Uint8Array, claimed: MediaFamily): SniffedFormat | null {
  if (bytes.length < 12) return null;
  const brand = isoBrand(bytes);
  if (claimed === "image") {
    if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { family: "image", extension: "jpg" };
    if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
      return { family: "image", extension: "png" };
    }
    if (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a") {
      return { family: "image", extension: "gif" };
    }
    if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") {
      return { family: "image", extension: "webp" };
    }
    if (brand === "avif" || brand === "avis") return { family: "image", extension: "avif" };
    return null;
  }
  const family = claimed;
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) {
    return { family, extension: family === "audio" ? "weba" : "webm" };
  }
  if (ascii(bytes, 0, 4) === "OggS") {
    return { family, extension: family === "audio" ? "oga" : "ogv" };
  }
  if (brand) {
    if (brand.startsWith("3gp") || brand.startsWith("3g2")) return { family, extension: "3gp" };
    if (brand === "qt  ") return { family, extension: "mov" };
    if (brand === "avif" || brand === "avis" || brand.startsWith("hei") || brand === "mif1") {
      return null; // still images in an ISO box are not video
    }
    return { family, extension: family === "audio" ? "m4a" : "mp4" };
  }
  // Old QuickTime files start with a moov/mdat/wide/free atom instead of ftyp.
  if (family === "video" && ["moov", "mdat", "wide", "free", "skip"].includes(ascii(bytes, 4, 4))) {
    return { family, extension: "mov" };
  }
  if (startsWith(bytes, [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11])) {
    return { family, extension: "asf" };
  }
  if (family !== "audio") return null;
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WAVE") {
    return { family, extension: "wav" };
  }
  if (ascii(bytes, 0, 4) === "fLaC") return { family, extension: "flac" };
  if (ascii(bytes, 0, 3) === "ID3") return { family, extension: "mp3" };
  if (bytes[0] === 0xff && (bytes[1] & 0xf6) === 0xf0) return { family, extension: "aac" }; // ADTS
  if (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0) return { family, extension: "mp3" }; // MPEG frame
  return null;
}
