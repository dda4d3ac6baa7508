/**
 * What media we accept, recognised by the bytes, not by the client's word
 * (Mastodon too decides from the file's content).
 *
 * The file's first bytes must be a format we handle; the type the client
 * declared does not matter (toot sends every file as
 * `application/octet-stream`, some apps send none), except to tell audio
 * from video in containers that hold either (WebM, Ogg, MP4, ASF) when the
 * bytes do not say. A text file, an SVG or an HEIC photo (sharp's build here
 * cannot decode HEVC) is refused, whatever it claims, with Mastodon's
 * "content type is invalid".
 */

/** The kinds of stored originals, by how they are processed. */
export type MediaFamily = "image" | "video" | "audio";

/** A format recognised from a file's first bytes. */
export interface SniffedFormat {
  family: MediaFamily;
  /** What sharp or ffmpeg is asked to read; also the stored extension of kept originals. */
  extension: string;
  /** The content type of the format (of the original as stored). */
  contentType: string;
}

/** How many first bytes {@link sniffFormat} looks at (Matroska names its codecs past the header). */
export const SNIFF_BYTES = 64 * 1024;

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

/**
 * The family a declared content type names when it is one we accept, or
 * null. Used only to tell audio from video in containers that hold either.
 */
export function declaredFamily(contentType: string): MediaFamily | null {
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

/** The bytes as a string of one character per byte, for pattern searches. */
function latin1(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return out;
}

/** Matroska codec ids of video and of sound tracks (CodecID values). */
const MATROSKA_VIDEO =
  /V_(?:VP[89]|AV1|MPEG|THEORA|MS\/VFW|UNCOMPRESSED|QUICKTIME|REAL|PRORES|FFV1|MJPEG)/;
const MATROSKA_AUDIO = /A_(?:OPUS|VORBIS|AAC|MPEG|FLAC|PCM|AC3|EAC3|DTS|ALAC|TRUEHD|REAL|MS\/ACM)/;

/** ISO base media (MP4, QuickTime, 3GP, AVIF, HEIC): the major brand of the `ftyp` box. */
function isoBrand(bytes: Uint8Array): string | null {
  if (bytes.length >= 12 && ascii(bytes, 4, 4) === "ftyp") return ascii(bytes, 8, 4);
  return null;
}

function format(family: MediaFamily, extension: string): SniffedFormat {
  return { family, extension, contentType: STORED_CONTENT_TYPES[extension] };
}

function sniffImage(bytes: Uint8Array): SniffedFormat | null {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return format("image", "jpg");
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return format("image", "png");
  }
  if (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a") {
    return format("image", "gif");
  }
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") {
    return format("image", "webp");
  }
  const brand = isoBrand(bytes);
  if (brand === "avif" || brand === "avis") return format("image", "avif");
  return null;
}

/** Formats that hold only sound. */
function sniffAudioOnly(bytes: Uint8Array): SniffedFormat | null {
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WAVE") return format("audio", "wav");
  if (ascii(bytes, 0, 4) === "fLaC") return format("audio", "flac");
  if (ascii(bytes, 0, 3) === "ID3") return format("audio", "mp3");
  // An ADTS (AAC) header: 12 sync bits, layer 00, a valid sampling rate.
  if (bytes[0] === 0xff && (bytes[1] & 0xf6) === 0xf0 && ((bytes[2] >> 2) & 0x0f) < 13) {
    return format("audio", "aac");
  }
  // An MPEG audio frame: 11 sync bits, no reserved version, layer, bitrate or rate.
  if (
    bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0 && (bytes[1] & 0x18) !== 0x08 &&
    (bytes[1] & 0x06) !== 0 && (bytes[2] & 0xf0) !== 0xf0 && (bytes[2] & 0x0c) !== 0x0c
  ) {
    return format("audio", "mp3");
  }
  return null;
}

/**
 * Containers of either audio or video. The family is the declared one when
 * the client declared audio or video; otherwise what the first bytes show
 * (an audio-only brand or codec), else video: processing turns a "video"
 * without a picture into audio (processing.ts).
 */
function sniffContainer(bytes: Uint8Array, hint: MediaFamily | null): SniffedFormat | null {
  const declared = hint === "image" ? null : hint;
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) {
    // Matroska names each track's codec: V_VP9, V_AV1… for video, A_OPUS… for sound.
    const text = declared ? "" : latin1(bytes);
    const family = declared ??
      (!MATROSKA_VIDEO.test(text) && MATROSKA_AUDIO.test(text) ? "audio" : "video");
    return format(family, family === "audio" ? "weba" : "webm");
  }
  if (ascii(bytes, 0, 4) === "OggS") {
    // The first page holds the first stream's header: Theora is video, the rest sound.
    const family = declared ?? (latin1(bytes).includes("\x80theora") ? "video" : "audio");
    return format(family, family === "audio" ? "oga" : "ogv");
  }
  const brand = isoBrand(bytes);
  if (brand) {
    if (brand.startsWith("hei") || brand.startsWith("hev") || ["mif1", "msf1"].includes(brand)) {
      return null; // HEIC/HEIF stills: not a format we can decode
    }
    if (brand.startsWith("3gp") || brand.startsWith("3g2")) {
      return format(declared ?? "video", "3gp");
    }
    if (brand === "qt  ") return format(declared ?? "video", "mov");
    const family = declared ?? (["M4A ", "M4B ", "M4P "].includes(brand) ? "audio" : "video");
    return format(family, family === "audio" ? "m4a" : "mp4");
  }
  // Old QuickTime files start with a moov/mdat/wide/free atom instead of ftyp.
  if (["moov", "mdat", "wide", "free", "skip"].includes(ascii(bytes, 4, 4))) {
    return format(declared ?? "video", "mov");
  }
  if (startsWith(bytes, [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11])) {
    return format(declared ?? "video", "asf");
  }
  return null;
}

/**
 * Recognises a file by its first bytes ({@link SNIFF_BYTES} are enough);
 * `hint` is the family the client declared, if any, and only decides between
 * audio and video in containers that hold either. Returns null for anything
 * we do not accept.
 */
export function sniffFormat(bytes: Uint8Array, hint: MediaFamily | null): SniffedFormat | null {
  if (bytes.length < 12) return null;
  return sniffImage(bytes) ?? sniffAudioOnly(bytes) ?? sniffContainer(bytes, hint);
}

/** The longest alt text of an attachment (Mastodon 4.7: 10,000 characters; 1,500 before). */
export const MEDIA_DESCRIPTION_LIMIT = 10_000;
