/**
 * The Newer/Older links under a paged list (staff pages, the web app).
 */
import type { PageParams, PageSize } from "../../api/pagination.ts";

export interface PageEnds {
  /** The newest shown row's cursor. */
  first: string;
  /** The oldest shown row's cursor. */
  last: string;
  /** How many rows the page read. */
  count: number;
}

/**
 * Newer once the list was paged, Older while the page is full or after
 * going newer. `href` makes a link from a cursor, which keeps a page size
 * other than the default.
 */
export function pageLinksOf(
  page: PageParams,
  size: PageSize,
  ends: PageEnds | null,
  href: (cursor: Record<string, string>) => string,
): { newer: string | null; older: string | null } {
  if (!ends) return { newer: null, older: null };
  const limit: Record<string, string> = page.limit === size.default
    ? {}
    : { limit: String(page.limit) };
  const paged = page.maxId != null || page.minId != null || page.sinceId != null;
  return {
    newer: paged ? href({ ...limit, min_id: ends.first }) : null,
    older: ends.count >= page.limit || page.minId != null
      ? href({ ...limit, max_id: ends.last })
      : null,
  };
}

/** {@link pageLinksOf} for a page of rows ordered by id, newest first (`ids` as shown). */
export function pageLinks(
  page: PageParams,
  size: PageSize,
  ids: readonly string[],
  href: (cursor: Record<string, string>) => string,
): { newer: string | null; older: string | null } {
  const ends = ids.length === 0 ? null : { first: ids[0], last: ids.at(-1)!, count: ids.length };
  return pageLinksOf(page, size, ends, href);
}
