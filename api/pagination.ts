/**
 * Id-based paging as Mastodon does it: `max_id`, `since_id`, `min_id` and
 * `limit` in, an RFC 8288 `Link` header out.
 *
 * Decisions:
 * - `limit` follows Mastodon's `limit_param`: absent, blank or not a number →
 *   the default; negative → its absolute value; 0 → the default (Mastodon
 *   would run LIMIT 0, which no client wants); above the maximum → the maximum.
 * - An id that is not a well-formed snowflake is ignored (treated as absent):
 *   Mastodon casts it to NULL and silently returns an empty page, which helps
 *   no one, and rejecting it would break clients that echo opaque cursors.
 * - `Link` URLs are built on `config.origin`, never on the Host header, and
 *   keep every other query parameter (`limit`, `types[]`, …) as sent.
 */
import type { Context } from "hono";
import type { ApiEnv } from "./env.ts";
import { isId } from "../db/ids.ts";
import type { Params } from "./params.ts";

/** Default and maximum `limit` of one kind of list. */
export interface PageSize {
  readonly default: number;
  readonly max: number;
}

/** Page sizes from the API spec's Limits table, by kind of list. */
export const PAGE_SIZES = {
  /** Public, tag, home, list and link timelines; account statuses. */
  timelines: { default: 20, max: 40 },
  statuses: { default: 20, max: 40 },
  scheduledStatuses: { default: 20, max: 40 },
  conversations: { default: 20, max: 40 },
  favourites: { default: 20, max: 40 },
  bookmarks: { default: 20, max: 40 },
  /** Followers, following, blocks, mutes, follow requests, endorsements, suggestions, … */
  accounts: { default: 40, max: 80 },
  notifications: { default: 40, max: 80 },
  groupedNotifications: { default: 40, max: 80 },
  notificationRequests: { default: 40, max: 80 },
  unreadCount: { default: 100, max: 1000 },
  followedTags: { default: 100, max: 200 },
  domainBlocks: { default: 100, max: 200 },
  admin: { default: 100, max: 200 },
  trends: { default: 10, max: 20 },
  trendStatuses: { default: 20, max: 40 },
  search: { default: 20, max: 40 },
} as const satisfies Record<string, PageSize>;

/** What a list endpoint needs to run its query. */
export interface PageParams {
  /** Only items with a lower id. */
  maxId: string | null;
  /** Only items with a higher id, newest first. */
  sinceId: string | null;
  /** Only items with a higher id, the ones immediately above (oldest first in the query). */
  minId: string | null;
  limit: number;
}

/** Clamps a raw `limit` value to a page size, as Mastodon's `limit_param` does. */
export function clampLimit(raw: unknown, size: PageSize): number {
  if (raw === undefined || raw === null || raw === "") return size.default;
  const n = typeof raw === "number" ? raw : Number(String(raw).trim());
  if (!Number.isFinite(n)) return size.default;
  const abs = Math.abs(Math.trunc(n));
  if (abs === 0) return size.default;
  return Math.min(abs, size.max);
}

function readCursor(value: unknown): string | null {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) {
    return String(value);
  }
  return isId(value) ? value : null;
}

/** Reads the paging parameters from parsed params. */
export function readPageParams(p: Params, size: PageSize): PageParams {
  return {
    maxId: readCursor(p.max_id),
    sinceId: readCursor(p.since_id),
    minId: readCursor(p.min_id),
    limit: clampLimit(p.limit, size),
  };
}

/** Reads the paging parameters straight from the query string. */
export function pageParamsFromQuery(c: Context<ApiEnv>, size: PageSize): PageParams {
  const q = new URL(c.req.url).searchParams;
  return {
    maxId: readCursor(q.get("max_id")),
    sinceId: readCursor(q.get("since_id")),
    minId: readCursor(q.get("min_id")),
    limit: clampLimit(q.get("limit"), size),
  };
}

const CURSOR_PARAMS = ["max_id", "min_id", "since_id"];

/** The request's URL on the public origin with a new cursor, other params kept. */
export function pageUrl(c: Context<ApiEnv>, cursor: Record<string, string>): string {
  const requestUrl = new URL(c.req.url);
  const url = new URL(requestUrl.pathname, c.get("ctx").config.origin);
  for (const [k, v] of requestUrl.searchParams) {
    if (!CURSOR_PARAMS.includes(k)) url.searchParams.append(k, v);
  }
  for (const [k, v] of Object.entries(cursor)) url.searchParams.append(k, v);
  return url.toString();
}

export interface LinkOptions {
  /** Id for the `next` (older) page, sent as `max_id`; null: no next link. */
  next: string | null;
  /** Id for the `prev` (newer) page; null: no prev link. */
  prev: string | null;
  /** Which parameter the prev link uses: `min_id` (default) or `since_id` (older lists). */
  prevParam?: "min_id" | "since_id";
}

/** Builds the `Link` header value, or null when there is nothing to link. */
export function buildLinkHeader(c: Context<ApiEnv>, options: LinkOptions): string | null {
  const links: string[] = [];
  if (options.next != null) links.push(`<${pageUrl(c, { max_id: options.next })}>; rel="next"`);
  if (options.prev != null) {
    const param = options.prevParam ?? "min_id";
    links.push(`<${pageUrl(c, { [param]: options.prev })}>; rel="prev"`);
  }
  return links.length ? links.join(", ") : null;
}

/** The cursors of a page of items ordered newest first, which its Link header is built from. */
export interface PageCursors {
  /** The oldest item's cursor, for the next (older) page; null at a known end. */
  next: string | null;
  /** The newest item's cursor, for the previous (newer) page. */
  prev: string | null;
  prevParam?: "min_id" | "since_id";
}

/**
 * What a paged read answers (api/reads/): the entities in order and the
 * cursors, taken from the rows read before the serializer dropped any (a
 * status it skips or a filter hides never breaks paging), and how many rows
 * that was (a full page means there may be more).
 */
export interface PageRead<T> {
  items: T[];
  cursors: PageCursors | null;
  rows: number;
}

/**
 * The cursors of a page of items ordered newest first: `next` from the last
 * (oldest) id, `prev` from the first (newest) one; none for an empty page.
 * `hasMore: false` leaves out `next` (lists that know they reached the end,
 * as Mastodon's `records_continue?`).
 */
export function pageCursors<T>(
  items: readonly T[],
  cursorOf: (item: T) => string,
  options: { prevParam?: "min_id" | "since_id"; hasMore?: boolean } = {},
): PageCursors | null {
  if (items.length === 0) return null;
  return {
    next: options.hasMore === false ? null : cursorOf(items[items.length - 1]),
    prev: cursorOf(items[0]),
    prevParam: options.prevParam,
  };
}

/** Sets the `Link` header of a page's cursors (none for an empty page). */
export function setLinkHeader(c: Context<ApiEnv>, cursors: PageCursors | null): void {
  if (!cursors) return;
  const header = buildLinkHeader(c, cursors);
  if (header) c.header("Link", header);
}

/** Sets the `Link` header for a page of items ordered newest first ({@link pageCursors}). */
export function setPaginationHeaders<T>(
  c: Context<ApiEnv>,
  items: readonly T[],
  cursorOf: (item: T) => string,
  options: { prevParam?: "min_id" | "since_id"; hasMore?: boolean } = {},
): void {
  setLinkHeader(c, pageCursors(items, cursorOf, options));
}
