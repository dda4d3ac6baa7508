/**
 * MEDIA_CACHE_RETENTION_PERIOD (Mastodon's): every hour the worker deletes
 * our copies of remote attachments and link card images cached longer ago
 * than the period. Avatars, headers and emoji stay (shown on every page,
 * small: `media remove --prune-profiles` takes profiles by hand). A pruned
 * item is shown at the media proxy's URL again and fetched on its next look.
 */
import type { AppContext } from "../../context.ts";
import { daysAgo } from "./batches.ts";
import { removeRemoteMediaCache } from "./remote_media.ts";
import { cardImagesBefore, removeCachedImages } from "./cached_images.ts";

/** One run; does nothing when no period is set. */
export async function pruneMediaCache(ctx: AppContext): Promise<void> {
  const days = ctx.config.media.cacheRetentionDays;
  if (!days) return;
  const cutoff = daysAgo(days);
  await removeRemoteMediaCache(ctx.database.db, ctx.media, cutoff);
  await removeCachedImages(ctx.database.db, ctx.media, cardImagesBefore(cutoff));
}
