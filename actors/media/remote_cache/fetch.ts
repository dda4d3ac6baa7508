/**
 * Downloading a remote file for the media cache, with the care every
 * outbound fetch needs (DESIGN.md: the SSRF guard) and the limits a hostile
 * server calls for:
 *
 * - http and https only; each hop through actors/net/public_fetch.ts (no
 *   loopback, private, link-local or reserved address, the connection pinned
 *   to the addresses checked) unless ALLOW_PRIVATE_ADDRESS is set; our own
 *   origin is never fetched (a copy of a copy of ourselves);
 * - redirects followed by hand, at most 3, each hop checked again, its host
 *   included against the domain rules (`refusedHost`), so a post cannot
 *   launder a blocked host's files through an allowed one;
 * - one deadline for the whole exchange, body included (a slow server is cut
 *   off, not waited on);
 * - only a 200; a `Content-Length` over the limit is refused before reading,
 *   and the body is read through a counter that stops past the limit (a
 *   server that lies about the length gains nothing);
 * - the type comes from the bytes (formats.ts), never from the header: an
 *   HTML page served as `image/png` is refused.
 *
 * Unsigned, as Mastodon fetches media: media hosts are often CDNs.
 */
import { publicFetch, RefusedAddressError } from "../../net/public_fetch.ts";
import { readUpTo } from "../../net/read_body.ts";
import { type MediaFamily, type SniffedFormat, sniffFormat } from "../formats.ts";

/** Why a remote file was not fetched (also the log field). */
export type RefusalReason =
  | "unavailable"
  | "blocked"
  | "private_address"
  | "too_large"
  | "bad_type"
  | "status"
  | "redirects"
  | "timeout"
  | "network";

/** The file could not be had; `reason` says why. */
export class RemoteMediaRefused extends Error {
  constructor(readonly reason: RefusalReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }

  /** Whether the remote side may answer later (the proxy says 502, not 404). */
  get transient(): boolean {
    return this.reason === "timeout" || this.reason === "network";
  }
}

export interface RemoteMediaFetchOptions {
  /** Bytes accepted at most. */
  maxBytes: number;
  /** The whole exchange, redirects and body included. */
  timeoutMs: number;
  /** The families accepted (sniffed from the bytes). */
  families: readonly MediaFamily[];
  userAgent: string;
  /** Our own origin: never fetched. */
  origin: string;
  /** Lets the fetch reach loopback and private addresses (tests, development). */
  allowPrivateAddress: boolean;
  /** Whether a hop's URL is on a host we refuse (suspended, or rejecting media). */
  refusedHost(url: URL): Promise<boolean>;
  /** Aborts the fetch (the server is stopping). */
  signal?: AbortSignal;
}

/** A fetched file. */
export interface RemoteMedia {
  bytes: Uint8Array<ArrayBuffer>;
  format: SniffedFormat;
  /** Where the file was found (after redirects). */
  finalUrl: string;
}

export const MAX_REDIRECTS = 3;

/** Fetches `url` within the limits; throws {@link RemoteMediaRefused}. */
export async function fetchRemoteMedia(
  url: string,
  options: RemoteMediaFetchOptions,
): Promise<RemoteMedia> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    return await fetchWithin(url, options, signal);
  } catch (error) {
    if (error instanceof RemoteMediaRefused) throw error;
    if (timeout.aborted) throw new RemoteMediaRefused("timeout", `Timed out: ${url}`);
    throw new RemoteMediaRefused("network", `Could not fetch ${url}`, { cause: error });
  }
}

async function fetchWithin(
  url: string,
  options: RemoteMediaFetchOptions,
  signal: AbortSignal,
): Promise<RemoteMedia> {
  let current = await checkedUrl(url, options);
  for (let hop = 0;; hop++) {
    const response = await fetchHop(current, options, signal);
    if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
      await response.body?.cancel();
      if (hop >= MAX_REDIRECTS) {
        throw new RemoteMediaRefused("redirects", `More than ${MAX_REDIRECTS} redirects: ${url}`);
      }
      current = await checkedUrl(new URL(response.headers.get("location")!, current).href, options);
      continue;
    }
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      throw new RemoteMediaRefused("status", `HTTP ${response.status}: ${current.href}`);
    }
    const declared = Number(response.headers.get("content-length") ?? NaN);
    if (declared > options.maxBytes) {
      await response.body.cancel();
      throw new RemoteMediaRefused("too_large", `${declared} bytes: ${current.href}`);
    }
    const { bytes, truncated } = await readUpTo(response.body, options.maxBytes);
    if (truncated) throw new RemoteMediaRefused("too_large", `Over the limit: ${current.href}`);
    const format = sniffFormat(bytes, null);
    if (!format || !options.families.includes(format.family)) {
      throw new RemoteMediaRefused("bad_type", `Not a media file we accept: ${current.href}`);
    }
    return { bytes, format, finalUrl: current.href };
  }
}

/** Parses a hop's URL and refuses other schemes, our own origin and refused hosts. */
async function checkedUrl(url: string, options: RemoteMediaFetchOptions): Promise<URL> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RemoteMediaRefused("blocked", `Not a URL: ${url}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new RemoteMediaRefused("blocked", `Unsupported protocol: ${parsed.protocol}`);
  }
  if (parsed.origin === new URL(options.origin).origin) {
    throw new RemoteMediaRefused("blocked", `Our own origin: ${url}`);
  }
  if (await options.refusedHost(parsed)) {
    throw new RemoteMediaRefused("blocked", `Refused host: ${parsed.host}`);
  }
  return parsed;
}

/** One request, without following redirects, through the guard unless private addresses are allowed. */
async function fetchHop(
  url: URL,
  options: RemoteMediaFetchOptions,
  signal: AbortSignal,
): Promise<Response> {
  const accept = options.families.map((f) => `${f}/*`).join(", ");
  const headers = { "Accept": accept, "User-Agent": options.userAgent };
  if (options.allowPrivateAddress) {
    return await fetch(url, { redirect: "manual", signal, headers });
  }
  try {
    return await publicFetch(url, { headers, signal });
  } catch (error) {
    if (error instanceof RefusedAddressError) {
      throw new RemoteMediaRefused("private_address", `Refused address: ${url.href}`, {
        cause: error,
      });
    }
    throw error;
  }
}
