/**
 * The streams a client can subscribe to, as Mastodon's streaming server
 * names them, with their parameters, the scopes they need and the errors it
 * answers (its messages and statuses, so clients that show them read the
 * same text).
 *
 * - user: the home feed, plus notifications when the token may read them
 *   (`read` or `read:notifications`), filters_changed and announcements;
 * - user:notification: notifications only;
 * - public, public:local, public:remote (each also `:media`): public
 *   originals, no replies to others; hashtag and hashtag:local (`tag`):
 *   public originals with that tag, replies included;
 * - list (`list`, an own list): what enters the list's feed;
 * - direct: conversations.
 */
import { scopesAllow } from "../../model/scopes.ts";

export const PUBLIC_STREAMS = [
  "public",
  "public:media",
  "public:local",
  "public:local:media",
  "public:remote",
  "public:remote:media",
  "hashtag",
  "hashtag:local",
] as const;

export const STREAM_NAMES = [
  "user",
  "user:notification",
  ...PUBLIC_STREAMS,
  "list",
  "direct",
] as const;

export type StreamName = typeof STREAM_NAMES[number];

const PUBLIC = new Set<string>(PUBLIC_STREAMS);
const NAMES = new Set<string>(STREAM_NAMES);

/** Whether a stream shows public statuses (and so decides from the status itself). */
export function isPublicStream(name: StreamName): boolean {
  return PUBLIC.has(name);
}

/**
 * One subscription of a connection. Kept small: a connection holds one or
 * a few, and a server holds thousands of connections.
 */
export interface Subscription {
  name: StreamName;
  /** The tag as the client wrote it (echoed in `stream`), for hashtag streams. */
  tag?: string;
  /** The tag normalized for matching (lower case, NFKC, no leading #). */
  tagKey?: string;
  /** The list id, for list streams. */
  list?: string;
  /** The `stream` field of the frames this subscription receives, as JSON. */
  streamJson: string;
}

/** A refusal, as Mastodon's streaming server words it. */
export class StreamError extends Error {
  constructor(readonly status: 400 | 401 | 403 | 404 | 429, message: string) {
    super(message);
  }
}

export const STREAM_ERRORS = {
  unknownStream: "Unknown stream type",
  unknownChannel: "Unknown channel requested",
  missingTag: "Missing tag name parameter",
  missingList: "Missing list name parameter",
  listNotAuthorized: "Not authorized to stream this list",
  missingToken: "Missing access token",
  invalidToken: "Invalid access token",
  scopes: "Access token does not have the required scopes",
} as const;

/** The longest tag accepted in a stream parameter (hashtags are shorter still). */
const MAX_TAG_LENGTH = 256;

/** A hashtag as statuses store it, for comparison. */
export function normalizeTag(tag: string): string {
  return tag.replace(/^[#＃]/, "").normalize("NFKC").toLowerCase();
}

/**
 * Parses a stream name and its parameters into a subscription (the list's
 * ownership is checked by the caller, which has the database). Throws
 * {@link StreamError}.
 */
export function parseSubscription(
  name: unknown,
  params: { tag?: unknown; list?: unknown },
): Subscription {
  if (typeof name !== "string" || !NAMES.has(name)) {
    throw new StreamError(400, STREAM_ERRORS.unknownStream);
  }
  const stream = name as StreamName;
  if (stream === "hashtag" || stream === "hashtag:local") {
    const tag = typeof params.tag === "string" ? params.tag.trim() : "";
    const tagKey = normalizeTag(tag);
    if (!tagKey || tag.length > MAX_TAG_LENGTH) {
      throw new StreamError(400, STREAM_ERRORS.missingTag);
    }
    return { name: stream, tag, tagKey, streamJson: JSON.stringify([stream, tag]) };
  }
  if (stream === "list") {
    const list = typeof params.list === "string" || typeof params.list === "number"
      ? String(params.list).trim()
      : "";
    if (!list) throw new StreamError(400, STREAM_ERRORS.missingList);
    return { name: stream, list, streamJson: JSON.stringify([stream, list]) };
  }
  return { name: stream, streamJson: JSON.stringify([stream]) };
}

/** Whether two subscriptions are the same stream (a second subscribe is a no-op). */
export function sameSubscription(a: Subscription, b: Subscription): boolean {
  return a.name === b.name && a.tagKey === b.tagKey && a.list === b.list;
}

/** What a connection's credentials allow. */
export interface StreamGrant {
  /** Null for an anonymous connection (public streams with the public preview on). */
  accountId: string | null;
  scopes: readonly string[];
}

/**
 * Checks that `grant` may subscribe to `sub` (Mastodon's checkScopes):
 * public streams need no scope (but a signed-in user or the public
 * preview), user:notification needs `read:notifications`, the others
 * `read:statuses` (`read` covers both).
 */
export function checkAccess(grant: StreamGrant, sub: Subscription, publicPreview: boolean): void {
  if (isPublicStream(sub.name)) {
    if (!grant.accountId && !publicPreview) {
      throw new StreamError(401, STREAM_ERRORS.missingToken);
    }
    return;
  }
  if (!grant.accountId) throw new StreamError(401, STREAM_ERRORS.missingToken);
  const needed = sub.name === "user:notification" ? "read:notifications" : "read:statuses";
  if (!scopesAllow(grant.scopes, [needed])) throw new StreamError(401, STREAM_ERRORS.scopes);
}

/**
 * Whether notifications go to a user stream of this grant: only with `read`
 * or `read:notifications`, as Mastodon (a read:statuses token gets the home
 * feed without them).
 */
export function mayReadNotifications(scopes: readonly string[]): boolean {
  return scopesAllow(scopes, ["read:notifications"]);
}

/** The stream an SSE path names (Mastodon's channelNameFromPath), or null. */
export function streamOfPath(path: string, onlyMedia: boolean): StreamName | null {
  const media = onlyMedia ? ":media" : "";
  switch (path.replace(/\/+$/, "")) {
    case "/api/v1/streaming/user":
      return "user";
    case "/api/v1/streaming/user/notification":
      return "user:notification";
    case "/api/v1/streaming/public":
      return `public${media}` as StreamName;
    case "/api/v1/streaming/public/local":
      return `public:local${media}` as StreamName;
    case "/api/v1/streaming/public/remote":
      return `public:remote${media}` as StreamName;
    case "/api/v1/streaming/hashtag":
      return "hashtag";
    case "/api/v1/streaming/hashtag/local":
      return "hashtag:local";
    case "/api/v1/streaming/list":
      return "list";
    case "/api/v1/streaming/direct":
      return "direct";
    default:
      return null;
  }
}
