/**
 * Which link of a status gets a preview card: the first http(s) link of its
 * HTML that is not a mention, a hashtag or the quoted post, as Mastodon's
 * FetchLinkCardService picks it.
 *
 * Skipped, like Mastodon: links with `rel="tag"`; links whose class marks a
 * mention or hashtag (`mention`, `hashtag`, `u-url`, `h-card`); links to a
 * mentioned account (`skipHrefs`, for servers that mark mentions with no
 * class); links inside a `quote-inline` paragraph (the RE: line of a quote);
 * links to this server; URLs longer than Mastodon stores (2,692 bytes).
 * Local statuses go through the same path: their HTML comes from our own
 * formatter, whose mention and hashtag links carry these classes.
 *
 * A remote status whose author named its card's link (a `Link` attachment,
 * FEP-8967, Mastodon 4.7: `statuses.card_link`) gets that link's card
 * instead, under the same rules for the URL.
 */
import { Parser } from "htmlparser2";

/** Longest link URL a card is made for (Mastodon's limit for its unique index). */
export const MAX_LINK_BYTES = 2692;

const SKIPPED_CLASSES = new Set(["mention", "hashtag", "u-url", "h-card"]);

export interface CardLinkOptions {
  /** This server's origin: links here never get a card. */
  origin: string;
  /** Hrefs that are not links to a page (mentioned accounts, the quoted post). */
  skipHrefs?: Iterable<string>;
}

function tokens(value: string | undefined): string[] {
  return (value ?? "").toLowerCase().split(/\s+/).filter(Boolean);
}

/** The normalized http(s) URL of an href, or null when it cannot get a card. */
function cardableUrl(href: string, origin: string): string | null {
  let url: URL;
  try {
    url = new URL(href.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (!url.hostname || url.origin === origin) return null;
  const out = url.href;
  if (new TextEncoder().encode(out).length > MAX_LINK_BYTES) return null;
  return out;
}

/** The link a status's preview card is for: the one its author named, else its text's first. */
export function statusCardLink(
  status: { content: string; cardLink: string | null },
  options: CardLinkOptions,
): string | null {
  if (status.cardLink) return cardableUrl(status.cardLink, new URL(options.origin).origin);
  return firstCardLink(status.content, options);
}

/** The link of `html` a preview card is for, or null when there is none. */
export function firstCardLink(html: string, options: CardLinkOptions): string | null {
  const skip = new Set<string>();
  for (const href of options.skipHrefs ?? []) {
    skip.add(href);
    if (URL.canParse(href)) skip.add(new URL(href).href);
  }
  const origin = new URL(options.origin).origin;
  // One entry per open element: whether it is (inside) a quote-inline paragraph.
  const quoted: boolean[] = [];
  let found: string | null = null;
  const parser = new Parser({
    onopentag(name, attribs) {
      const inQuote = (quoted.at(-1) ?? false) || tokens(attribs.class).includes("quote-inline");
      quoted.push(inQuote);
      if (found || name !== "a" || inQuote || attribs.href == null) return;
      if (tokens(attribs.rel).includes("tag")) return;
      if (tokens(attribs.class).some((c) => SKIPPED_CLASSES.has(c))) return;
      if (skip.has(attribs.href)) return;
      const url = cardableUrl(attribs.href, origin);
      if (url && !skip.has(url)) found = url;
    },
    onclosetag() {
      quoted.pop();
    },
  });
  parser.end(html);
  return found;
}
