/**
 * The one grammar of media store keys. Rows keep keys, never URLs; the store
 * (mod.ts) turns a key into a public URL and refuses to write, read or
 * delete anything that does not parse here, so a corrupt row or a crafted
 * request path can never name another file.
 *
 *   media_attachments/files/<7×3 digits>/<original|small>-<16 hex>.<ext>    uploads
 *   custom_emojis/images/<7×3 digits>/<original|static>-<16 hex>.<ext>      local emoji
 *   accounts/<avatars|headers>/<account id>/<32 hex>.<png|jpg|webp>         local profiles
 *   cache/media_attachments/files/…, cache/custom_emojis/images/…,
 *   cache/accounts/…                                                        copies of remote media
 *   cache/preview_cards/images/<7×3 digits>/<16 hex>.<ext>                  link card images
 *   archives/archive-<14 digits>-<32 hex>.zip                               archive exports (private)
 *
 * Every piece is made by the key's owner from an id and random hex (the
 * `new…Key` functions below), never from client input. The random part keeps
 * URLs unguessable from the (time-ordered) ids, and a replaced file always
 * gets a new name, so a URL always means the same bytes and can be cached
 * forever. `cache/` mirrors Mastodon's layout, so pruning and CDN rules work
 * by prefix.
 */
import { encodeHex } from "../../formatting/encoding.ts";
import { STORED_CONTENT_TYPES } from "../formats.ts";

/** The top folders of the store: the only places files are written. */
export const MEDIA_FOLDERS = [
  "media_attachments",
  "custom_emojis",
  "accounts",
  "cache",
  "archives",
] as const;

/** The folders of local media (the uploads, local emoji and local profile images). */
export const LOCAL_MEDIA_FOLDERS = ["media_attachments", "custom_emojis", "accounts"] as const;

/** Where the files of one kind live, below the store's root (or below `cache/`). */
const FOLDER = {
  attachment: "media_attachments/files",
  emoji: "custom_emojis/images",
  avatar: "accounts/avatars",
  header: "accounts/headers",
  card: "preview_cards/images",
} as const;

/** Formats of processed profile images, by extension. */
export const PROFILE_IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  webp: "image/webp",
};

/** Formats of emoji images, by extension (the still copy is always PNG). */
export const EMOJI_IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  gif: "image/gif",
  webp: "image/webp",
};

/** What a key names; see {@link parseKey}. */
export type ParsedKey =
  | { kind: "attachment"; id: string; variant: "original" | "small"; cached: boolean }
  | { kind: "emoji"; id: string; variant: "original" | "static"; cached: boolean }
  | { kind: "avatar" | "header"; id: string; variant: null; cached: boolean }
  | { kind: "card"; id: string; variant: "image"; cached: true }
  | { kind: "archive"; id: null; variant: null; cached: false };

export type KeyKind = ParsedKey["kind"];

const ID_DIGITS = 21; // snowflakes have up to 19 digits; 7 groups of 3
const GROUPS = `(\\d{3}(?:/\\d{3}){${ID_DIGITS / 3 - 1}})`;
const EXTENSIONS = {
  attachment: Object.keys(STORED_CONTENT_TYPES),
  emoji: Object.keys(EMOJI_IMAGE_TYPES),
  profile: Object.keys(PROFILE_IMAGE_TYPES),
};
const CARD_EXTENSIONS = ["jpg", "png", "gif", "webp"];

const PATTERNS = {
  attachment: new RegExp(`^${FOLDER.attachment}/${GROUPS}/(original|small)-[0-9a-f]{16}\\.(\\w+)$`),
  emoji: new RegExp(`^${FOLDER.emoji}/${GROUPS}/(original|static)-[0-9a-f]{16}\\.(\\w+)$`),
  profile: /^accounts\/(avatars|headers)\/(\d{1,20})\/[0-9a-f]{32}\.(\w+)$/,
  card: new RegExp(`^${FOLDER.card}/${GROUPS}/[0-9a-f]{16}\\.(\\w+)$`),
  archive: /^archives\/archive-\d{14}-[0-9a-f]{32}\.zip$/,
};

/** The id spelt by the folder groups of a key. */
function idOfGroups(groups: string): string {
  return BigInt(groups.replaceAll("/", "")).toString();
}

/**
 * What a key names, or null when it is not a key the store could have
 * written (bad shape, unknown folder or extension, `..`, a temporary name).
 */
export function parseKey(key: string): ParsedKey | null {
  if (key.length > 200) return null;
  const archive = PATTERNS.archive.test(key);
  if (archive) return { kind: "archive", id: null, variant: null, cached: false };
  const cached = key.startsWith("cache/");
  const rest = cached ? key.slice("cache/".length) : key;
  let match = PATTERNS.attachment.exec(rest);
  if (match && EXTENSIONS.attachment.includes(match[3])) {
    const variant = match[2] as "original" | "small";
    return { kind: "attachment", id: idOfGroups(match[1]), variant, cached };
  }
  match = PATTERNS.emoji.exec(rest);
  if (match && EXTENSIONS.emoji.includes(match[3])) {
    const variant = match[2] as "original" | "static";
    return { kind: "emoji", id: idOfGroups(match[1]), variant, cached };
  }
  match = PATTERNS.profile.exec(rest);
  if (match && EXTENSIONS.profile.includes(match[3])) {
    const kind = match[1] === "avatars" ? "avatar" : "header";
    return { kind, id: match[2], variant: null, cached };
  }
  match = cached ? PATTERNS.card.exec(rest) : null;
  if (match && CARD_EXTENSIONS.includes(match[2])) {
    return { kind: "card", id: idOfGroups(match[1]), variant: "image", cached: true };
  }
  return null;
}

const FOLDER_SET: ReadonlySet<string> = new Set(MEDIA_FOLDERS);
const SEGMENT = /^[0-9A-Za-z_-]+$/;
const FILE_NAME = /^[0-9A-Za-z_-]+\.[0-9a-z]{2,5}$/;

/**
 * Whether a key can name a file of the store: plain segments under one of
 * its folders (`..`, encoded slashes, temporary names and anything outside
 * are not). Looser than {@link parseKey}: a file there that no grammar
 * describes is still the store's, so the orphan check can remove it.
 */
export function isMediaKey(key: string): boolean {
  if (key.length > 300) return false;
  const segments = key.split("/");
  if (segments.length < 2 || !FOLDER_SET.has(segments[0])) return false;
  return segments.slice(1, -1).every((s) => SEGMENT.test(s)) && FILE_NAME.test(segments.at(-1)!);
}

/** Whether a key names a file anyone may fetch by its URL (everything but archives). */
export function isPublicKey(key: string): boolean {
  const parsed = parseKey(key);
  return parsed != null && parsed.kind !== "archive";
}

/** The content type of a stored file, from the extension its key was given. */
export function contentTypeOfKey(key: string): string {
  if (key.endsWith(".zip")) return "application/zip";
  const extension = key.slice(key.lastIndexOf(".") + 1);
  return STORED_CONTENT_TYPES[extension] ?? "application/octet-stream";
}

/** The id as path segments: zero-padded and cut in groups of three digits. */
export function idPartition(id: string): string[] {
  if (!/^\d{1,21}$/.test(id)) throw new Error(`not an id: ${id}`);
  return id.padStart(ID_DIGITS, "0").match(/\d{3}/g)!;
}

function randomHex(bytes: number): string {
  return encodeHex(crypto.getRandomValues(new Uint8Array(bytes)));
}

function checked(key: string): string {
  if (!parseKey(key)) throw new Error(`not a media key: ${key}`);
  return key;
}

const prefix = (cached: boolean | undefined) => cached ? "cache/" : "";

/** A new key for a file of attachment `id` (`cached`: a copy of a remote attachment). */
export function newAttachmentKey(
  id: string,
  style: "original" | "small",
  extension: string,
  options: { cached?: boolean } = {},
): string {
  const name = `${style}-${randomHex(8)}.${extension}`;
  return checked(
    `${prefix(options.cached)}${FOLDER.attachment}/${idPartition(id).join("/")}/${name}`,
  );
}

/** A new key for an image of emoji `id` (`cached`: a copy of a remote emoji). */
export function newEmojiKey(
  id: string,
  style: "original" | "static",
  extension: string,
  options: { cached?: boolean } = {},
): string {
  const name = `${style}-${randomHex(8)}.${extension}`;
  return checked(`${prefix(options.cached)}${FOLDER.emoji}/${idPartition(id).join("/")}/${name}`);
}

/** A new key for an avatar or header of account `accountId`. */
export function newProfileImageKey(
  accountId: string,
  kind: "avatar" | "header",
  extension: string,
  options: { cached?: boolean } = {},
): string {
  const name = `${randomHex(16)}.${extension}`;
  return checked(`${prefix(options.cached)}${FOLDER[kind]}/${accountId}/${name}`);
}

/** A new key for the copy of link card `id`'s image. */
export function newCardImageKey(id: string, extension: string): string {
  return checked(`cache/${FOLDER.card}/${idPartition(id).join("/")}/${randomHex(8)}.${extension}`);
}

/** A new key for a built archive, named as Mastodon names them (time, then 16 random bytes). */
export function newArchiveKey(now = new Date()): string {
  const stamp = now.toISOString().replace(/\D/g, "").slice(0, 14);
  return checked(`archives/archive-${stamp}-${randomHex(16)}.zip`);
}

/**
 * The key of an account's own avatar or header, when the row's key is one
 * (null otherwise): only a file in that account's own folder can come out,
 * whatever the row says.
 */
export function ownProfileImageKey(accountId: string, key: string | null): string | null {
  if (!key) return null;
  const parsed = parseKey(key);
  return parsed && (parsed.kind === "avatar" || parsed.kind === "header") &&
      parsed.id === accountId
    ? key
    : null;
}
