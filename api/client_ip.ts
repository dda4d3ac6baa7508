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
