/**
 * Whether a request is addressed to this server: the host it names (the
 * request URL's authority and the `Host` header, which HTTP/1.1 lets differ
 * when the request target is an absolute URL) must be ORIGIN's host. Behind
 * a trusted proxy (TRUST_PROXY) that is the forwarded host, which rookery.ts
 * has put in both before asking.
 *
 * A request for another host is refused at the HTTP entrance (rookery.ts),
 * as Mastodon's host authorization refuses it (403; `/health` excepted, so
 * a load balancer may check a process by its address). Without that check a
 * signature made for another server (a GET or a delivery that server B
 * signed for server X, whose `host` is X) verified here when replayed with
 * `Host: X`: HTTP signatures cover the host precisely so that they are not
 * reusable elsewhere, and the check is only worth anything against our own
 * name. The inbox guard and authorized fetch ask again before they trust a
 * signature, so a caller that skips the entrance cannot skip this.
 *
 * Spellings of one host are one host: case, a trailing dot, the scheme's
 * default port written out, IPv6 written long or short, Unicode or
 * punycode. A different port is a different host (`127.0.0.1:3001` is not
 * `127.0.0.1:3002`, as two development servers on one machine are not).
 */

/**
 * `raw` (a `Host` value: name or address, with an optional port) in one
 * spelling, as `scheme` would write it; null when it is not a host.
 */
export function canonicalHost(raw: string, scheme: string): string | null {
  const value = raw.trim();
  if (value === "" || value.length > 261 || /[\s/\\?#@%]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(`${scheme}//${value}/`);
  } catch {
    return null;
  }
  if (url.username || url.password || url.pathname !== "/" || !url.hostname) return null;
  const name = url.hostname.replace(/\.$/, "");
  return url.port ? `${name}:${url.port}` : name;
}

/** Whether `raw` is a spelling of ORIGIN's host (with its port). */
export function isOwnHost(raw: string, origin: string): boolean {
  const ours = new URL(origin);
  const host = canonicalHost(raw, ours.protocol);
  return host != null && host === canonicalHost(ours.host, ours.protocol);
}

/** Whether both the URL and the `Host` header (when sent) of `request` name ORIGIN's host. */
export function addressedToUs(request: Request, origin: string): boolean {
  // Not the scheme: behind a TLS proxy without TRUST_PROXY the URL says http.
  if (!isOwnHost(new URL(request.url).host, origin)) return false;
  const header = request.headers.get("host");
  return header == null || isOwnHost(header, origin);
}

/** The paths answered whatever host they are asked under (Mastodon excepts its health check). */
export function answersAnyHost(request: Request): boolean {
  return new URL(request.url).pathname === "/health";
}

/** The answer to a request for a host that is not ours (Mastodon's host authorization: 403). */
export function blockedHost(): Response {
  return new Response(JSON.stringify({ error: "Blocked host" }), {
    status: 403,
    headers: { "Content-Type": "application/json; charset=utf-8" },
  });
}
