/**
 * Custom emoji in ActivityPub (Mastodon's `toot:Emoji`):
 *
 *   { "id": "https://example.com/emojis/1", "type": "Emoji", "name": ":blobcat:",
 *     "updated": "…", "icon": { "type": "Image", "mediaType": "image/png", "url": "…" } }
 *
 * Out: local statuses and actors carry an Emoji tag for each emoji their
 * text uses ({@link emojiTag}), and `/emojis/{id}` answers the Emoji object
 * of a local emoji. In: {@link readEmojiTag} turns a remote tag into the
 * checked input actors/emoji/links.ts stores; a malformed tag (no icon, a
 * non-http(s) URL, a bad or too long shortcode) is ignored.
 */
import type { Federation } from "@fedify/fedify";
import { Emoji, Image, Link, type Object as APObject } from "@fedify/vocab";
import { and, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { customEmojis } from "../../db/schema/mod.ts";
import { authorizeFetch } from "../dispatchers/authorized_fetch.ts";
import { storedFileUrl } from "../../actors/media/storage.ts";
import { MAX_EMOJIS_PER_OBJECT } from "../../actors/emoji/shortcodes.ts";
import { validShortcode } from "../../model/emoji_shortcodes.ts";
import type { RemoteEmojiInput } from "../../actors/emoji/links.ts";
import { webUrl } from "../fetch/trust.ts";
import { localUris } from "../../model/uris.ts";

/** Path of a local emoji's ActivityPub object (its `uri`). */
export const EMOJI_PATH = "/emojis/{id}";

type EmojiRow = typeof customEmojis.$inferSelect;

/** The Emoji object of a stored emoji; null when it has no image to point at. */
export function emojiTag(origin: string, row: EmojiRow): Emoji | null {
  const url = row.domain == null
    ? row.filePath ? storedFileUrl(origin, row.filePath) : null
    : row.remoteUrl;
  const id = row.uri ?? (row.domain == null ? localUris(origin).emoji(row.id) : null);
  if (!url) return null;
  return new Emoji({
    id: id ? new URL(id) : null,
    name: `:${row.shortcode}:`,
    updated: Temporal.Instant.fromEpochMilliseconds(row.updatedAt.getTime()),
    icon: new Image({ mediaType: row.contentType, url: new URL(url) }),
  });
}

/** A document loader that never fetches: only embedded values are read. */
const noFetch = () => Promise.reject(new Error("not fetched"));

/** Reads one Emoji tag of a remote object; null when it is unusable. */
export async function readEmojiTag(tag: Emoji): Promise<RemoteEmojiInput | null> {
  const name = tag.name?.toString() ?? "";
  const match = /^:([^:]+):$/.exec(name.trim());
  const shortcode = match?.[1] ?? "";
  if (!validShortcode(shortcode)) return null;
  const icon = await tag.getIcon({ documentLoader: noFetch, suppressError: true })
    .catch(() => null);
  if (!(icon instanceof Image)) return null;
  const href = icon.url instanceof Link ? icon.url.href : icon.url;
  const url = webUrl(href ?? null);
  if (!url) return null;
  const mediaType = icon.mediaType && /^image\/[\w.+-]{1,60}$/.test(icon.mediaType)
    ? icon.mediaType
    : null;
  return { shortcode, url, uri: webUrl(tag.id), contentType: mediaType };
}

/**
 * The usable Emoji tags of an object (an actor), at most
 * {@link MAX_EMOJIS_PER_OBJECT}, one per shortcode; embedded tags only.
 */
export async function readEmojiTags(object: APObject): Promise<RemoteEmojiInput[]> {
  const emojis: RemoteEmojiInput[] = [];
  try {
    for await (const tag of object.getTags({ documentLoader: noFetch, suppressError: true })) {
      if (!(tag instanceof Emoji)) continue;
      const emoji = await readEmojiTag(tag);
      if (emoji && !emojis.some((e) => e.shortcode === emoji.shortcode)) emojis.push(emoji);
      if (emojis.length >= MAX_EMOJIS_PER_OBJECT) break;
    }
  } catch {
    // A malformed tag list reads as no emoji.
  }
  return emojis;
}

/** Registers the object dispatcher of local emoji at {@link EMOJI_PATH}. */
export function registerEmojiDispatcher(federation: Federation<AppContext>): void {
  federation.setObjectDispatcher(Emoji, EMOJI_PATH, async (ctx, values) => {
    if (!/^\d{1,19}$/.test(values.id)) return null;
    const [row] = await ctx.data.database.db.select().from(customEmojis).where(and(
      eq(customEmojis.id, values.id),
      isNull(customEmojis.domain),
      eq(customEmojis.disabled, false),
    ));
    return row ? emojiTag(ctx.data.config.origin, row) : null;
  }).authorize((ctx) => authorizeFetch(ctx, null));
}
