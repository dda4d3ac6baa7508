/**
 * The one HTML sanitizer: Mastodon's allow-list (app/lib/sanitize_config.rb,
 * MASTODON_STRICT), through sanitize-html. Remote content goes through it
 * before it is stored (profile notes, field values, status content), and the
 * HTML pages and feeds pass stored HTML through it again when they render it
 * (web/pages/: status cards, the embed page, the staff pages' evidence;
 * web/routes/public/feeds.ts), a second line of defence against a row written by
 * something that forgot; both sides keep exactly the same tags and
 * attributes. Plain-text values (display names, field names) are read by
 * html_to_text.ts.
 */
// @deno-types="@types/sanitize-html"
import sanitize from "sanitize-html";

/** Link schemes Mastodon keeps (`LINK_PROTOCOLS`); anything else loses its href. */
const LINK_SCHEMES = [
  "http",
  "https",
  "dat",
  "dweb",
  "ipfs",
  "ipns",
  "ssb",
  "gopher",
  "xmpp",
  "magnet",
  "gemini",
];

/** Microformats and Mastodon's own classes survive; every other class is dropped. */
const ALLOWED_CLASS = /^(h|p|u|dt|e)-[a-z0-9-]+$|^(mention|hashtag|ellipsis|invisible)$/;

const OPTIONS: sanitize.IOptions = {
  allowedTags: [
    "p",
    "br",
    "span",
    "a",
    "del",
    "s",
    "pre",
    "code",
    "em",
    "strong",
    "b",
    "i",
    "u",
    "ul",
    "ol",
    "li",
    "blockquote",
  ],
  allowedAttributes: {
    a: ["href", "rel", "class", "translate", "target"],
    span: ["class", "translate"],
    ol: ["start", "reversed"],
    li: ["value"],
  },
  allowedSchemes: LINK_SCHEMES,
  allowedSchemesAppliedToAttributes: ["href"],
  allowProtocolRelative: false,
  // Headings become bold paragraphs, as Mastodon renders them.
  transformTags: {
    h1: "strong",
    h2: "strong",
    h3: "strong",
    h4: "strong",
    h5: "strong",
    h6: "strong",
    a: (tagName, attribs) => {
      const out: Record<string, string> = {
        ...attribs,
        rel: "nofollow noopener",
        target: "_blank",
      };
      if (attribs.class) out.class = keepClasses(attribs.class);
      if (!out.class) delete out.class;
      return { tagName, attribs: out };
    },
    span: (tagName, attribs) => {
      const out: Record<string, string> = { ...attribs };
      if (attribs.class) out.class = keepClasses(attribs.class);
      if (!out.class) delete out.class;
      return { tagName, attribs: out };
    },
  },
  disallowedTagsMode: "discard",
};

function keepClasses(value: string): string {
  return value.split(/\s+/).filter((c) => ALLOWED_CLASS.test(c)).join(" ");
}

/** Maximum stored length of remote HTML; longer input is cut before parsing. */
const MAX_HTML = 100_000;

/**
 * Tags (counted as `<`) read through the sanitizer at most. It costs 3 to
 * 15 µs a tag, so 100 KB of `<a href=x>` (10,000 links) took 50 to 170 ms
 * of CPU, and 100 KB of `<` 35 to 110 ms; a real post, even a long article,
 * has a few hundred tags.
 */
const MAX_TAGS = 2_000;

/** Sanitizes remote HTML to Mastodon's allow-list. Null and undefined give "". */
export function sanitizeHtml(html: string | null | undefined): string {
  if (!html) return "";
  const bounded = html.slice(0, MAX_HTML);
  if (tagsOver(bounded, MAX_TAGS)) return textOnly(bounded);
  return sanitize(bounded, OPTIONS).trim();
}

const TAG_START = /</g;

function tagsOver(html: string, limit: number): boolean {
  let count = 0;
  for (const _ of html.matchAll(TAG_START)) if (++count > limit) return true;
  return false;
}

/**
 * HTML with more tags than anyone writes, kept as its text in one paragraph:
 * every tag dropped (a space where it ended a block), entities left as they
 * were, what could open a tag escaped. Linear, whatever the input.
 */
function textOnly(html: string): string {
  const text = html
    .replace(/<\/?(?:p|br|li|div|blockquote|h[1-6])\b[^>]*>?/gi, " ")
    .replace(/<[^>]*>?/g, "")
    .replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replace(/\s+/g, " ").trim();
  return text ? `<p>${text}</p>` : "";
}
