/**
 * Offset paging, for lists ordered by something other than an id (trends by
 * score, the directory by activity): `offset` and `limit` in, a `Link`
 * header with `offset` out, as Mastodon's trends and directory answer.
 */
import type { Context } from "hono";
import type { ApiEnv } from "./env.ts";
import type { Params } from "./params.ts";

/** Offsets past this find nothing worth the scan. */
export const MAX_OFFSET = 10_000;

/** `offset` as Mastodon's `to_i` reads it (junk and negatives are 0), bounded. */
export function readOffset(p: Params): number {
  const raw = p.offset;
  const n = typeof raw === "number" ? raw : typeof raw === "string" ? parseInt(raw, 10) : 0;
  if (!Number.isFinite(n) || n < 0) return 0;
  return Math.min(Math.trunc(n), MAX_OFFSET);
}

function offsetUrl(c: Context<ApiEnv>, offset: number): string {
  const requestUrl = new URL(c.req.url);
  const url = new URL(requestUrl.pathname, c.get("ctx").config.origin);
  for (const [k, v] of requestUrl.searchParams) {
    if (k !== "offset") url.searchParams.append(k, v);
  }
  url.searchParams.set("offset", String(offset));
  return url.toString();
}

/**
 * Sets `Link`: `next` when the page was full (there may be more), `prev`
 * when the page did not start at the beginning.
 */
export function setOffsetLinks(
  c: Context<ApiEnv>,
  offset: number,
  limit: number,
  count: number,
): void {
  const links: string[] = [];
  if (count >= limit && offset + limit <= MAX_OFFSET) {
    links.push(`<${offsetUrl(c, offset + limit)}>; rel="next"`);
  }
  if (offset > 0) links.push(`<${offsetUrl(c, Math.max(0, offset - limit))}>; rel="prev"`);
  if (links.length) c.header("Link", links.join(", "));
}
