/**
 * The tags of a note federation/inbox/plain_create.ts reads: mentions,
 * hashtags and custom emoji as Mastodon, Misskey and most servers write
 * them, built as Fedify's parse builds them:
 *
 *   {"type": "Mention", "href": …, "name": "@a@b"}
 *   {"type": "Hashtag", "href": …, "name": "#tag"}
 *   {"id": …, "type": "Emoji", "name": ":x:", "updated": …,
 *    "icon": {"type": "Image", "mediaType": "image/png", "url": …}}
 *
 * A hashtag under a context that does not define `Hashtag` is not typed by
 * JSON-LD (the raw JSON is where it is read: dialects/terms.ts), and is
 * left out as Fedify leaves it out; an emoji under such a context, or any
 * other tag, ends the reading. A tag with an id on another origin than
 * its note is one Fedify refetches: that too ends it.
 */
import { Emoji, Hashtag, Image, Mention } from "@fedify/vocab";
import type { Vocabulary } from "./plain_context.ts";
import { fail, httpUrl, instant, items, object, onlyKeys, optional, text } from "./plain_values.ts";

/** Keys of a mention or a hashtag. */
const LINK_KEYS = new Set(["type", "href", "name"]);
const EMOJI_KEYS = new Set(["id", "type", "name", "updated", "icon"]);
const ICON_KEYS = new Set(["type", "mediaType", "url"]);

export type Tag = Mention | Hashtag | Emoji;

/** The note's tags (see the module comment); `origin` is its id's. */
export function readTags(value: unknown, vocabulary: Vocabulary, origin: string): Tag[] {
  const out: Tag[] = [];
  for (const item of items(value)) {
    const tag = object(item);
    if (tag.type === "Emoji") {
      if (!vocabulary.has("Emoji")) fail();
      out.push(emoji(tag, origin));
      continue;
    }
    onlyKeys(tag, LINK_KEYS);
    const href = httpUrl(tag.href);
    const name = optional(tag.name, text);
    if (tag.type === "Mention") out.push(new Mention({ href, name }));
    else if (tag.type === "Hashtag") {
      if (vocabulary.has("Hashtag")) out.push(new Hashtag({ href, name }));
    } else fail();
  }
  return out;
}

function emoji(tag: Record<string, unknown>, origin: string): Emoji {
  onlyKeys(tag, EMOJI_KEYS);
  const id = optional(tag.id, httpUrl);
  if (id && id.origin !== origin) fail();
  const icon = object(tag.icon);
  onlyKeys(icon, ICON_KEYS);
  if (icon.type !== "Image") fail();
  return new Emoji({
    id,
    name: text(tag.name),
    updated: optional(tag.updated, instant),
    icon: new Image({
      mediaType: optional(icon.mediaType, text),
      url: httpUrl(icon.url),
    }),
  });
}
