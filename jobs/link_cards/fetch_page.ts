/**
 * Fetching the HTML page behind a link, for its preview card, with the care
 * every outbound fetch needs (DESIGN.md: the SSRF guard):
 *
 * - only http and https, each hop fetched through actors/net/public_fetch.ts
 *   (no loopback, private, link-local or otherwise reserved address, the
 *   connection pinned to the addresses checked) unless ALLOW_PRIVATE_ADDRESS
 *   is set;
 * - redirects followed by hand (so every hop is checked), at most a few;
 * - one deadline for the whole exchange, redirects and body included;
 * - only a 200 `text/html` answer is read (Mastodon's rule), and at most
 *   `maxBytes` of it: the rest is never downloaded (Mastodon, too, reads a
 *   truncated body);
 * - the text is decoded with the charset the headers or the page declare.
 */
import { publicFetch, RefusedAddressError } from "../../actors/net/public_fetch.ts";
import { readUpTo } from "../../actors/net/read_body.ts";

export interface PageFetchOptions {
  userAgent: string;
  /** Lets the fetch reach loopback and private addresses (tests, development). */
  allowPrivateAddress: boolean;
  /** The whole exchange, redirects and body included (default 10 s). */
  timeoutMs?: number;
  /** Bytes of body read at most (default 1 MiB). */
  maxBytes?: number;
  /** Redirects followed at most (default 3). */
  maxRedirects?: number;
  /** Aborts the fetch (the worker is stopping). */
  signal?: AbortSignal;
}

/** An HTML page as fetched. */
export interface FetchedPage {
  /** Where the page was found (after redirects). */
  url: string;
  html: string;
}

export const PAGE_TIMEOUT_MS = 10_000;
export const PAGE_MAX_BYTES = 1024 * 1024;
export const PAGE_MAX_REDIRECTS = 3;

/** Why a page could not be had; the worker logs it and makes no card. */
export class PageFetchError extends Error {}

/**
 * Fetches `url` and returns its HTML, or null when the answer is not a 200
 * HTML page. Throws {@link PageFetchError} for refused addresses and
 * too many redirects; network errors and timeouts are thrown as they are.
 */
export async function fetchHtmlPage(
  url: string,
  options: PageFetchOptions,
): Promise<FetchedPage | null> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? PAGE_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const maxRedirects = options.maxRedirects ?? PAGE_MAX_REDIRECTS;
  let current = url;
  for (let hop = 0;; hop++) {
    const response = await fetchHop(current, options, signal);
    if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
      await response.body?.cancel();
      if (hop >= maxRedirects) throw new PageFetchError(`More than ${maxRedirects} redirects`);
      current = new URL(response.headers.get("location")!, current).href;
      continue;
    }
    const type = response.headers.get("content-type") ?? "";
    if (response.status !== 200 || mimeType(type) !== "text/html" || !response.body) {
      await response.body?.cancel();
      return null;
    }
    const { bytes } = await readUpTo(response.body, options.maxBytes ?? PAGE_MAX_BYTES);
    return { url: current, html: decode(bytes, charsetOf(type)) };
  }
}

/** One request, without following redirects, through the guard unless private addresses are allowed. */
async function fetchHop(
  url: string,
  options: PageFetchOptions,
  signal: AbortSignal,
): Promise<Response> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PageFetchError(`Not a URL: ${url}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new PageFetchError(`Unsupported protocol: ${parsed.protocol}`);
  }
  const headers = { "Accept": "text/html", "User-Agent": options.userAgent };
  if (options.allowPrivateAddress) {
    return await fetch(parsed, { redirect: "manual", signal, headers });
  }
  try {
    return await publicFetch(parsed, { headers, signal });
  } catch (error) {
    if (error instanceof RefusedAddressError) {
      throw new PageFetchError(`Refused address: ${url}`, { cause: error });
    }
    throw error;
  }
}

function mimeType(contentType: string): string {
  return contentType.split(";")[0].trim().toLowerCase();
}

function charsetOf(contentType: string): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  return match ? match[1] : null;
}

/** Reads up to `max` bytes of a body, then stops the download. */
/** The charset a page declares in its first bytes (`<meta charset>` or http-equiv). */
function declaredCharset(bytes: Uint8Array): string | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 2048));
  const match = /<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_.:-]+)/i.exec(head);
  return match ? match[1] : null;
}

function decode(bytes: Uint8Array, headerCharset: string | null): string {
  for (const label of [headerCharset, declaredCharset(bytes)]) {
    if (!label) continue;
    try {
      return new TextDecoder(label).decode(bytes);
    } catch {
      // An unknown label: try the next one, then UTF-8.
    }
  }
  return new TextDecoder().decode(bytes);
}
