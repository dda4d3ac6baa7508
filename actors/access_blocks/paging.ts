/**
 * Id paging for the admin lists of blocks (`max_id`, `since_id`, `min_id`,
 * `limit`, newest first), as Mastodon pages them.
 */
import { and, asc, desc, gt, lt, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";

/** Paging bounds; ids are well-formed snowflakes (the API layer checks). */
export interface BlockPage {
  maxId: string | null;
  sinceId: string | null;
  minId: string | null;
  limit: number;
}

/** The WHERE and ORDER BY of a page over `id`; `min_id` pages are read upwards. */
export function pageQuery(id: PgColumn, page: BlockPage, extra?: SQL) {
  return {
    where: and(
      extra,
      page.maxId ? lt(id, page.maxId) : undefined,
      page.sinceId ? gt(id, page.sinceId) : undefined,
      page.minId ? gt(id, page.minId) : undefined,
    ),
    order: page.minId ? asc(id) : desc(id),
    ascending: page.minId != null,
  };
}

/** Rows read upwards for a `min_id` page, handed back newest first. */
export function newestFirst<T>(rows: T[], ascending: boolean): T[] {
  return ascending ? rows.reverse() : rows;
}
