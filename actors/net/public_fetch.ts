/**
 * Outbound requests that cannot be steered into this machine or its network
 * (DESIGN.md: the SSRF guard): link previews, fetched documents, and every
 * request Fedify makes for us (deliveries, WebFinger, NodeInfo; see
 * federation/fetch/outbound_fetch.ts).
 *
 * - Only http and https. A host named `localhost` (or under `.localhost`) is
 *   refused by name; an IP literal, however spelt (the URL parser has made
 *   `2130706433` and `0177.0.0.1` into 127.0.0.1 already), and every
 *   address a name resolves to must be public: no loopback, RFC 1918,
 *   link-local, CGNAT, NAT64/6to4 forms of private IPv4, multicast or
 *   reserved ranges (Fedify's tables, the ones its own fetches use).
 * - The name is resolved once and the connection goes to exactly the
 *   addresses checked (node:http's `lookup` hook): a name that answers a
 *   public address at check time and a private one at connect time (DNS
 *   rebinding) cannot move the connection. TLS still verifies the name.
 * - Unlike Fedify's `validatePublicUrl`, it fails closed: no DNS answer, no
 *   request, whatever Deno's permissions say.
 */
import { lookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { isValidPublicIPv4Address, isValidPublicIPv6Address } from "@fedify/vocab-runtime";

/** The URL names a place we never connect to. */
export class RefusedAddressError extends Error {}

/** The place is on this machine or a private network (as opposed to a name that does not resolve). */
export class PrivateAddressError extends RefusedAddressError {}

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** The name resolver; tests replace `lookup` to play a rebinding DNS server. */
export const dnsResolver = {
  lookup: (hostname: string): Promise<ResolvedAddress[]> => lookup(hostname, { all: true }),
};

/**
 * Which addresses count as public. Tests that need a whole exchange over
 * the pinned path replace `isPublic` to let one loopback peer through.
 */
export const addressPolicy = {
  isPublic: (address: string, family: number): boolean =>
    family === 4
      ? isValidPublicIPv4Address(address)
      : family === 6 && isValidPublicIPv6Address(address),
};

function assertPublic(address: string, family: number): void {
  if (!addressPolicy.isPublic(address, family)) {
    throw new PrivateAddressError(`Private or reserved address: ${address}`);
  }
}

/**
 * The public addresses `url` may be fetched from; throws
 * {@link RefusedAddressError} for another scheme, a private address or a
 * name that resolves to one (or to nothing).
 */
export async function publicAddresses(url: URL): Promise<ResolvedAddress[]> {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RefusedAddressError(`Unsupported protocol: ${url.protocol}`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const family = isIP(host);
  if (family !== 0) {
    assertPublic(host, family);
    return [{ address: host, family }];
  }
  const name = host.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) {
    throw new PrivateAddressError(`Local name: ${host}`);
  }
  let found: ResolvedAddress[];
  try {
    found = await dnsResolver.lookup(name);
  } catch (error) {
    throw new RefusedAddressError(`DNS lookup failed: ${name}`, { cause: error });
  }
  const addresses = found.filter((a) => isIP(a.address) !== 0);
  if (addresses.length === 0) throw new RefusedAddressError(`No address for ${name}`);
  for (const a of addresses) assertPublic(a.address, isIP(a.address));
  return addresses;
}

/** What {@link publicFetch} sends. */
export interface PublicFetchInit {
  /** GET unless said otherwise (deliveries are POSTs). */
  method?: string;
  headers: Record<string, string>;
  /** The whole body, for a POST; sent with its Content-Length. */
  body?: Uint8Array | null;
  signal: AbortSignal;
}

/**
 * Requests `url` from one of its checked public addresses. Redirects are
 * not followed (the caller checks each hop with this function again). The
 * answer is a web Response whose body streams from the socket.
 */
export async function publicFetch(url: URL, init: PublicFetchInit): Promise<Response> {
  const addresses = await publicAddresses(url);
  init.signal.throwIfAborted();
  const client = url.protocol === "https:" ? https : http;
  const body = init.body ?? null;
  const headers = { ...init.headers };
  if (body) headers["content-length"] = String(body.byteLength);
  return await new Promise<Response>((resolve, reject) => {
    const request = client.request(url, {
      method: init.method ?? "GET",
      headers,
      // Connect to what was checked, never to a second answer of the resolver.
      lookup: ((_host, options, callback) => {
        if (options?.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      }) as LookupFunction,
    }, (response) => {
      // The deadline covers the body too: aborting ends the stream with an error.
      const stop = () => response.destroy(init.signal.reason);
      init.signal.addEventListener("abort", stop, { once: true });
      response.on("close", () => init.signal.removeEventListener("abort", stop));
      const answer = new Headers();
      for (const [key, value] of Object.entries(response.headers)) {
        for (const one of Array.isArray(value) ? value : value == null ? [] : [value]) {
          answer.append(key, one);
        }
      }
      const status = response.statusCode ?? 502;
      const stream = [204, 205, 304].includes(status) || init.method === "HEAD"
        ? null
        : Readable.toWeb(response) as ReadableStream<Uint8Array>;
      if (!stream) response.resume();
      resolve(new Response(stream, { status, headers: answer }));
    });
    const abort = () => request.destroy(init.signal.reason);
    init.signal.addEventListener("abort", abort, { once: true });
    request.on("response", () => init.signal.removeEventListener("abort", abort));
    request.on("error", (error) => {
      init.signal.removeEventListener("abort", abort);
      reject(error);
    });
    request.end(body ?? undefined);
  });
}
