/**
 * The client's IP address, for per-IP rate limits and logs.
 *
 * By default it is the TCP peer: headers are trivially forged. Behind a
 * reverse proxy (config.trustProxy) it is the right-most address of
 * X-Forwarded-For that is not a loopback or private address, i.e. the first
 * hop that none of our own proxies vouches for; a client cannot spoof it by
 * prepending addresses of its own.
 */
import type { Context } from "hono";
import type { ApiEnv } from "./env.ts";

/** Loopback, private, link-local and unique-local addresses: where our proxies live. */
export function isInternalAddress(ip: string): boolean {
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/i.exec(ip);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) || (a === 169 && b === 254) || a === 0;
  }
  const v6 = ip.toLowerCase();
  return v6 === "::1" || v6 === "::" || /^f[cd][0-9a-f]{2}:/.test(v6) ||
    /^fe[89ab][0-9a-f]:/.test(v6);
}

/** Strips brackets and ports from a forwarded address (`[::1]:80`, `1.2.3.4:5`). */
function cleanAddress(raw: string): string {
  let s = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) return bracketed[1];
  if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"));
  return s;
}

/** The connection's peer address, or "unknown" when the server did not say. */
export function remoteAddress(c: Context<ApiEnv>): string {
  const addr = c.env?.info?.remoteAddr;
  if (addr && (addr.transport === "tcp" || addr.transport === "udp")) return addr.hostname;
  return "unknown";
}

/** The client IP under the configured proxy trust. */
export function clientIp(c: Context<ApiEnv>): string {
  const peer = remoteAddress(c);
  if (!c.get("ctx").config.trustProxy) return peer;
  const forwarded = (c.req.header("x-forwarded-for") ?? "").split(",").map(cleanAddress)
    .filter(Boolean);
  const chain = [...forwarded, peer];
  for (let i = chain.length - 1; i >= 0; i--) {
    if (!isInternalAddress(chain[i]) && chain[i] !== "unknown") return chain[i];
  }
  return chain[0];
}

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
function ipv6Groups(ip: string): number[] | null {
  let s = ip.toLowerCase().replace(/%.*$/, "");
  const v4Tail = /:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (v4Tail) {
    const b = v4Tail.slice(1).map(Number);
    if (b.some((n) => n > 255)) return null;
    s = s.slice(0, v4Tail.index + 1) + ((b[0] << 8) | b[1]).toString(16) + ":" +
      ((b[2] << 8) | b[3]).toString(16);
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":"));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const parts = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!parts.every((p) => /^[0-9a-f]{1,4}$/.test(p))) return null;
  return parts.map((p) => parseInt(p, 16));
}

/**
 * What per-IP rate limits count against: an IPv4 address as it is (also when
 * written IPv4-mapped, `::ffff:a.b.c.d`), and for IPv6 its /64 network. One
 * subscriber usually gets a whole /64 and can pick any address in it, so
 * counting single IPv6 addresses would give an abuser 2^64 buckets.
 */
export function rateLimitSubject(ip: string): string {
  const groups = ip.includes(":") ? ipv6Groups(ip) : null;
  if (!groups) return ip;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join(".");
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}
