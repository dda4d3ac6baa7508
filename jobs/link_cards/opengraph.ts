/**
 * Reading a preview card out of an HTML page, as Mastodon's
 * LinkDetailsExtractor does for OpenGraph:
 *
 * - title: `og:title`, else the page's `<title>`;
 * - description: `og:description`, else `<meta name="description">`;
 * - image: `og:image` (relative to the page, http or https only), its size
 *   from `og:image:width` / `og:image:height` when given;
 * - provider: `og:site_name`; its URL from `og:site` (a host or URL);
 * - author: `og:author`, else `og:author:username`.
 *
 * A `<meta>` is matched by `property` or `name`, case-insensitively; the
 * first one wins. Entities are decoded by the parser; text is trimmed, runs
 * of white space collapsed, and capped (title 255, description 1,000
 * characters, as Mastodon's columns). The card type is `link`: `video` and
 * `rich` cards carry an embeddable player (oEmbed or `twitter:player`),
 * which is not read here, so `og:type` does not change it (nor does it in
 * Mastodon). A page without a title gives no card.
 */
import { Parser } from "htmlparser2";
import { MAX_LINK_BYTES } from "../../actors/cards/links.ts";

export const MAX_TITLE = 255;
export const MAX_DESCRIPTION = 1000;
/** Names, author and provider: bounded so a hostile page cannot store much. */
const MAX_NAME = 255;

/** What a page says about itself; ready to store as a preview_cards row. */
export interface ExtractedCard {
  title: string;
  description: string;
  type: "link";
  imageUrl: string | null;
  width: number;
  height: number;
  providerName: string;
  providerUrl: string;
  authorName: string;
  /** `fediverse:creator`: the author's handle, `user@domain`, lower-cased; null when absent or malformed. */
  creatorHandle: string | null;
}

/** `@user@domain` or `user@domain`, as `fediverse:creator` names an author. */
const CREATOR_HANDLE = /^@?([^@\s/]{1,64}@[a-z0-9.-]{1,253}(?::[0-9]{1,5})?)$/i;

function creatorHandle(value: string | undefined): string | null {
  const match = CREATOR_HANDLE.exec(value?.trim() ?? "");
  return match ? match[1].toLowerCase() : null;
}

/** Collapses white space, drops control characters, trims and caps. */
function clean(value: string | undefined, max: number): string {
  if (!value) return "";
  // deno-lint-ignore no-control-regex
  const text = value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "")
    .replace(/\s+/g, " ").trim();
  return [...text].slice(0, max).join("").trim();
}

/** An absolute http(s) URL for `value` relative to `base`, or null. */
function absoluteUrl(value: string | undefined, base: string): string | null {
  if (!value?.trim() || value.trim() === "null") return null;
  try {
    const url = new URL(value.trim(), base);
    if ((url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) return null;
    if (new TextEncoder().encode(url.href).length > MAX_LINK_BYTES) return null;
    return url.href;
  } catch {
    return null;
  }
}

function dimension(value: string | undefined): number {
  const n = Number.parseInt(value?.trim() ?? "", 10);
  return Number.isFinite(n) && n > 0 && n <= 100_000 ? n : 0;
}

/** Reads the card of a page found at `pageUrl`; null when it has no title. */
export function extractCard(html: string, pageUrl: string): ExtractedCard | null {
  const meta = new Map<string, string>();
  let title: string | null = null;
  let inTitle = false;
  let titleText = "";
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name === "meta" && attribs.content != null) {
        for (const key of [attribs.property, attribs.name]) {
          const k = key?.trim().toLowerCase();
          if (k && !meta.has(k)) meta.set(k, attribs.content);
        }
      } else if (name === "title" && title == null) {
        inTitle = true;
        titleText = "";
      }
    },
    ontext(text) {
      if (inTitle) titleText += text;
    },
    onclosetag(name) {
      if (name === "title" && inTitle) {
        inTitle = false;
        title = titleText;
      }
    },
  });
  parser.end(html);

  const cardTitle = clean(meta.get("og:title") || title || "", MAX_TITLE);
  if (!cardTitle) return null;
  const imageUrl = absoluteUrl(meta.get("og:image") ?? meta.get("og:image:url"), pageUrl);
  const site = meta.get("og:site")?.trim();
  return {
    title: cardTitle,
    description: clean(meta.get("og:description") || meta.get("description"), MAX_DESCRIPTION),
    type: "link",
    imageUrl,
    width: imageUrl ? dimension(meta.get("og:image:width")) : 0,
    height: imageUrl ? dimension(meta.get("og:image:height")) : 0,
    providerName: clean(meta.get("og:site_name"), MAX_NAME),
    providerUrl: site
      ? absoluteUrl(/^https?:\/\//i.test(site) ? site : `http://${site}`, pageUrl) ?? ""
      : "",
    authorName: clean(meta.get("og:author") || meta.get("og:author:username"), MAX_NAME),
    creatorHandle: creatorHandle(meta.get("fediverse:creator")),
  };
}
