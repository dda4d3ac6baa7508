/**
 * The remote media cache: copies of remote attachments, avatars, headers,
 * emoji and link card images, kept in the media store under `cache/` and
 * fetched when first asked for (the media proxy, api/routes/media_proxy.ts).
 *
 * Each kind's module (attachments.ts, profiles.ts, emoji.ts, cards.ts)
 * reads its row, refuses what must not be fetched (no remote URL, a hidden
 * owner, a domain that is suspended or rejects media, a failure under ten
 * minutes old), fetches through fetch.ts, processes as uploads are
 * processed, writes under fresh keys, then records the keys with an update
 * conditional on the row still wanting them (no copy yet, same remote URL).
 * If another process won meanwhile, the files just written are deleted. No
 * lock is held across the network; inside one process concurrent requests
 * for one item share one promise ({@link RemoteMediaCache}, in the core).
 */
import type { AppContext } from "../../../context.ts";
import { productUserAgent } from "../../../version.ts";
import {
  domainOfUrl,
  federationRefused,
  federationRefusedUrl,
  mediaRejected,
} from "../../moderation/domain_rules.ts";
import type { MediaFamily } from "../formats.ts";
import { MediaStoreUnavailable } from "../store/mod.ts";
import { fetchRemoteMedia, type RemoteMedia, RemoteMediaRefused } from "./fetch.ts";

/** The context the cache works in. */
export type CacheContext = Pick<AppContext, "config" | "database" | "media" | "core">;

/** A failed fetch is not tried again for this long (the proxy answers 404 meanwhile). */
export const RETRY_AFTER_FAILURE_MS = 10 * 60 * 1000;

/** Attachments other than images may be large: their own deadline (99 MiB at ~2 MB/s). */
export const LARGE_MEDIA_TIMEOUT_MS = 60_000;

/** Avatars, headers and card images: Mastodon's 8 MiB. */
export const PROFILE_IMAGE_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Fetches in flight in this process, by item: concurrent requests for one
 * file share one download (a field of the process core, never module state).
 */
export class RemoteMediaCache {
  readonly #inflight = new Map<string, Promise<string>>();

  /** Runs `work` for `item` unless it already runs; every caller gets its result. */
  once(item: string, work: () => Promise<string>): Promise<string> {
    const running = this.#inflight.get(item);
    if (running) return running;
    const promise = work().finally(() => this.#inflight.delete(item));
    this.#inflight.set(item, promise);
    return promise;
  }
}

/** Nothing to fetch for this row (missing, no remote file, hidden, failed lately). */
export function unavailable(what: string): RemoteMediaRefused {
  return new RemoteMediaRefused("unavailable", `Not available: ${what}`);
}

/** Whether a failure recorded at `failedAt` is recent enough to refuse a new try. */
export function failedLately(failedAt: Date | null): boolean {
  return failedAt != null && Date.now() - failedAt.getTime() < RETRY_AFTER_FAILURE_MS;
}

/** Refuses media of an account domain we do not federate with or whose media we reject. */
export async function checkOwnerDomain(ctx: CacheContext, domain: string | null): Promise<void> {
  if (await federationRefused(ctx, domain) || await mediaRejected(ctx, domain)) {
    throw new RemoteMediaRefused("blocked", `Media of ${domain} are refused`);
  }
}

/** Fetches a remote file for the cache within `limits`. */
export function fetchForCache(
  ctx: CacheContext,
  url: string,
  limits: { families: readonly MediaFamily[]; maxBytes: number; timeoutMs?: number },
): Promise<RemoteMedia> {
  const { config } = ctx;
  return fetchRemoteMedia(url, {
    ...limits,
    timeoutMs: limits.timeoutMs ?? config.fetchTimeoutMs,
    userAgent: productUserAgent(config.origin),
    origin: config.origin,
    allowPrivateAddress: config.allowPrivateAddress,
    // The file's host (and each redirect's) is checked too: a post cannot
    // launder a blocked host's files through an allowed one.
    refusedHost: async (hop) =>
      await federationRefusedUrl(ctx, hop) || await mediaRejected(ctx, domainOfUrl(hop)),
  });
}

/**
 * Runs a kind's fetch-and-store `work`, recording a failure with
 * `markFailed` (so the next try waits) before passing it on.
 */
export async function recordingFailure<T>(
  work: () => Promise<T>,
  markFailed: () => Promise<unknown>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // Nothing was tried, or our own store failed: the remote file is not to blame.
    if (error instanceof RemoteMediaRefused && error.reason === "unavailable") throw error;
    if (error instanceof MediaStoreUnavailable) throw error;
    await markFailed().catch(() => {});
    throw error;
  }
}

/** Deletes files written for a row that another writer updated first. */
export async function dropLosers(ctx: CacheContext, keys: string[]): Promise<void> {
  await ctx.media.delete(keys);
}
