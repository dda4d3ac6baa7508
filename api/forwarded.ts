/**
 * The request as the client addressed it, behind a TLS-terminating reverse
 * proxy that we trust (TRUST_PROXY). The proxy talks plain HTTP to our own
 * address and says in `X-Forwarded-Proto` and `X-Forwarded-Host` what the
 * client asked for; the public URL is what OAuth redirects, cookies and
 * above all HTTP signatures need (RFC 9421's `@target-uri` includes the
 * scheme and the authority).
 *
 * The body is handed on as a stream, never read here: the inbox guard's
 * early refusals and the size limits of api/params.ts apply behind the proxy
 * as they do without it. The rebuilt request cannot be upgraded to a
 * WebSocket (Deno ties the upgrade to the request object the connection
 * delivered), so the HTTP entrance keeps that one for the streaming route.
 */

/** A host with an optional port: a DNS name, IPv4 address or bracketed IPv6 address. */
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The first of a comma-separated header's values (the one the outermost proxy saw). */
function firstValue(header: string | null): string | null {
  const value = header?.split(",")[0].trim();
  return value ? value : null;
}

/** `url` on another scheme and host; null when `host` is not one (a bad port too). */
function publicUrl(url: URL, scheme: string, host: string | null): URL | null {
  if (!host || !HOST.test(host)) return null;
  try {
    return new URL(`${scheme}://${host}${url.pathname}${url.search}`);
  } catch {
    return null;
  }
}

/** Whether the request carries forwarding headers at all. */
export function isForwarded(request: Request): boolean {
  return request.headers.has("x-forwarded-proto") || request.headers.has("x-forwarded-host");
}

/**
 * `request` with its URL and `Host` header taken from the forwarding headers;
 * a value that is not a plain scheme or host is ignored (the request keeps
 * what the connection said), so a malformed header cannot make a URL point
 * elsewhere than a host.
 */
export function forwardedRequest(request: Request): Request {
  const url = new URL(request.url);
  const proto = firstValue(request.headers.get("x-forwarded-proto"))?.toLowerCase();
  const host = firstValue(request.headers.get("x-forwarded-host"));
  const scheme = proto === "https" || proto === "http" ? proto : url.protocol.slice(0, -1);
  const target = publicUrl(url, scheme, host) ?? publicUrl(url, scheme, url.host)!;
  if (target.href === url.href) return request;
  const headers = new Headers(request.headers);
  headers.set("host", target.host);
  const bodyless = request.method === "GET" || request.method === "HEAD";
  return new Request(target, {
    method: request.method,
    headers,
    body: bodyless ? null : request.body,
    signal: request.signal,
    redirect: request.redirect,
    // A stream body needs it (the Fetch standard's half-duplex requests).
    ...({ duplex: "half" } as RequestInit),
  });
}
