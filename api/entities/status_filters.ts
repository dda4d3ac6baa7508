/**
 * Filters applied to statuses as the viewer sees them: the one place where
 * an account's filters meet what the API shows. The Status serializer
 * (status.ts) calls it for every page it builds, so every timeline, status
 * list, thread, notification (v1 and grouped) and, once streaming exists,
 * every streamed status (call {@link applyFilters} on the payload's rows for
 * the stream's context) is filtered the same way.
 *
 * Mastodon's semantics:
 * - a status matches a filter by a keyword in its text (see
 *   actors/filters/match.ts) or by its id (for a boost: its own id or the
 *   boosted status's; the text read is the boosted status's);
 * - the viewer's own statuses (and boosts of them) are never filtered;
 * - shown in a context (home, public, notifications, thread, account), only
 *   the filters of that context count; a `hide` match leaves the status out
 *   (the caller may keep one: a thread's requested status), `warn` and
 *   `blur` matches are listed in `filtered` (FilterResult[]), on a boost
 *   and on the status it boosts alike;
 * - shown outside any context (favourites, bookmarks, answers to a post or
 *   a boost), every active filter's matches are listed and nothing is left
 *   out.
 *
 * `filtered` differs per viewer, so it is added here, after the Status
 * entity is built from what every viewer shares. The viewer's compiled
 * filters are kept in the entity cache (entity_cache.ts), evicted by
 * triggers when any of them changes; expiry is checked at match time.
 */
import type { AppContext } from "../../context.ts";
import { htmlToText } from "../../actors/formatting/html_to_text.ts";
import { filtersOf } from "../../actors/filters/filters.ts";
import {
  type CompiledFilter,
  compileFilters,
  matchFilters,
  searchableText,
} from "../../actors/filters/match.ts";
import type { FilterContext } from "../../actors/filters/rules.ts";
import { filterResultEntity, type FilterResultJson } from "./filter_result.ts";
import type { Hydration } from "./status_hydration.ts";
import type { StatusRow } from "./status.ts";

/** Where statuses are shown, and which one a `hide` never leaves out. */
export interface FilterOptions {
  /** The context the statuses are shown in; absent: none (nothing is left out). */
  context?: FilterContext;
  /** The id of a status shown even when a `hide` filter matches it (a thread's own status). */
  keep?: string;
}

/** The viewer's filters, compiled (from the entity cache when it can). */
export async function viewerFilters(ctx: AppContext, accountId: string): Promise<CompiledFilter[]> {
  const cache = ctx.core.entityCache;
  const epoch = await cache.begin();
  if (cache.enabled) {
    const cached = cache.filters.get(accountId);
    if (cached) return cached;
  }
  const compiled = compileFilters(await filtersOf(ctx.database.db, accountId));
  if (cache.enabled) cache.storeFilters(epoch, accountId, compiled);
  return compiled;
}

/** What filtering decided for one shown row. */
export interface Filtering {
  /** The FilterResults to show in `filtered` (empty: none). */
  results: FilterResultJson[];
  /** Whether the row is left out. */
  hidden: boolean;
}

const NONE: Filtering = { results: [], hidden: false };

/**
 * Matches one shown row (a status or a boost) against the viewer's filters.
 * `h` is the page's hydration (for the boosted status, its media and poll).
 */
export function applyFilters(
  row: StatusRow,
  h: Hydration,
  viewerId: string,
  filters: readonly CompiledFilter[],
  options: FilterOptions,
): Filtering {
  if (filters.length === 0) return NONE;
  const proper = row.reblogOfId ? h.statuses.get(row.reblogOfId) : row;
  if (!proper || row.accountId === viewerId || proper.accountId === viewerId) return NONE;
  const matches = matchFilters(filters, {
    ids: row.reblogOfId ? [row.id, row.reblogOfId] : [row.id],
    text: () => {
      const bundle = h.bundles.get(proper.id);
      return searchableText({
        spoilerText: proper.spoilerText,
        plainContent: htmlToText(proper.content),
        pollOptions: bundle?.poll?.options,
        mediaDescriptions: bundle?.media.map((m) => m.description),
      });
    },
  }, options.context ?? null);
  if (matches.length === 0) return NONE;
  const hidden = options.context != null && row.id !== options.keep &&
    matches.some((m) => m.filter.action === "hide");
  return { results: matches.map(filterResultEntity), hidden };
}
