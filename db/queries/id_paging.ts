/**
 * The one reading of id paging (`max_id`, `since_id`, `min_id`, `limit`,
 * newest first), as Mastodon's paginate_by_id: a page below `max_id` and
 * above `since_id` is read downwards from the newest; a `min_id` page is
 * read upwards from just above it (the page right after it), then handed
 * back newest first. Every list paged by the id of its rows uses it: the
 * timelines, notifications, relation lists and the admin lists.
 */
import { and, asc, type Column, desc, type Placeholder, type SQL, sql } from "drizzle-orm";

/** Paging bounds, as api/pagination.ts reads them. */
export interface Page {
  maxId: string | null;
  sinceId: string | null;
  minId: string | null;
  limit: number;
}

/** A page's bounds as values, or as placeholders of a prepared query. */
export type PageBounds = {
  [K in "maxId" | "sinceId" | "minId"]?: string | Placeholder | null;
};

/**
 * `column` within the page's bounds, and the order to read it in. `upwards`
 * says whether the page is read upwards (by default: a `min_id` page).
 */
export function pageWindow(
  column: Column | SQL,
  page: PageBounds,
  upwards: boolean = page.minId != null,
): {
  where: SQL | undefined;
  order: SQL;
  /** The page was read upwards; the caller reverses it to newest first ({@link newestFirst}). */
  reverse: boolean;
} {
  const parts: SQL[] = [];
  if (page.maxId) parts.push(sql`${column} < ${page.maxId}::bigint`);
  if (page.sinceId) parts.push(sql`${column} > ${page.sinceId}::bigint`);
  if (page.minId) parts.push(sql`${column} > ${page.minId}::bigint`);
  return {
    where: parts.length ? and(...parts) : undefined,
    order: upwards ? asc(column) : desc(column),
    reverse: upwards,
  };
}

/** A page's rows newest first (`reverse`: they were read upwards). */
export function newestFirst<T>(rows: T[], reverse: boolean): T[] {
  return reverse ? rows.reverse() : rows;
}
