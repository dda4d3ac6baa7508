/**
 * The attachments of a note federation/inbox/plain_create.ts reads: media
 * as Mastodon, Misskey and GoToSocial write them, built as Fedify's parse
 * builds them:
 *
 *   {"type": "Document", "mediaType": "image/png", "url": …, "name": "alt",
 *    "blurhash": …, "focalPoint": [0.1, -0.2], "width": 800, "height": 600}
 *
 * (`Image`, `Video`, `Audio` alike). The media's URL may be on any origin
 * (a CDN): Fedify reads it as an IRI and fetches nothing. `blurhash` and
 * `focalPoint` are not Fedify's: the raw JSON is where they are read
 * (dialects/terms.ts), so they are only checked to be of the shape JSON-LD
 * takes. An attachment with an id, a URL given as a Link, a thumbnail
 * (`icon`), a duration, a preview card's `Link`, or any other key ends
 * the reading.
 */
import { Audio, Document, Image, Video } from "@fedify/vocab";
import type { Vocabulary } from "./plain_context.ts";
import { count, fail, httpUrl, items, object, onlyKeys, optional, text } from "./plain_values.ts";

const MEDIA_KEYS = new Set([
  "type",
  "mediaType",
  "url",
  "name",
  "summary",
  "blurhash",
  "focalPoint",
  "width",
  "height",
  "sensitive",
]);
const CLASSES = { Document, Image, Video, Audio } as const;

export type Media = Document | Image | Video | Audio;

export function readAttachments(value: unknown, vocabulary: Vocabulary): Media[] {
  return items(value).map((item) => media(object(item), vocabulary));
}

function media(json: Record<string, unknown>, vocabulary: Vocabulary): Media {
  onlyKeys(json, MEDIA_KEYS);
  const type = json.type;
  if (type !== "Document" && type !== "Image" && type !== "Video" && type !== "Audio") fail();
  if (json.blurhash != null && typeof json.blurhash !== "string") fail();
  if (json.focalPoint != null) focalPoint(json.focalPoint);
  const sensitive = optional(
    json.sensitive,
    (value) => typeof value === "boolean" ? value : fail(),
  );
  return new CLASSES[type]({
    mediaType: optional(json.mediaType, text),
    url: httpUrl(json.url),
    name: optional(json.name, text),
    summary: optional(json.summary, text),
    width: optional(json.width, count),
    height: optional(json.height, count),
    // Without Mastodon's definition, JSON-LD drops `sensitive` (the raw JSON still has it).
    sensitive: vocabulary.has("sensitive") ? sensitive : null,
  });
}

/** Two finite numbers, as Mastodon writes a focal point. */
function focalPoint(value: unknown): void {
  if (!Array.isArray(value) || value.length !== 2) fail();
  if (!value.every((n) => typeof n === "number" && Number.isFinite(n))) fail();
}
