/**
 * Cursors of our paged ActivityPub collections. A page is asked for by
 * `?cursor=first` or by `?cursor=<id>` (items with a smaller id than that),
 * newest first, so pages stay stable while new items arrive on top.
 */

/** The cursor of every collection's first page. */
export const FIRST_PAGE = "first";

/** Items per collection page. */
export const PAGE_SIZE = 40;

const MAX_ID = 2n ** 63n - 1n;

/**
 * Parses a cursor: `{ before: null }` for the first page, `{ before: id }`
 * for a later one, and null when the cursor is not one of ours (the caller
 * answers 404 rather than let a bad bigint reach the database).
 */
export function parseCursor(cursor: string): { before: string | null } | null {
  if (cursor === FIRST_PAGE) return { before: null };
  if (!/^\d{1,19}$/.test(cursor) || BigInt(cursor) > MAX_ID) return null;
  return { before: cursor };
}

/**
 * Cuts a page out of rows read with `limit(size + 1)`: the extra row only
 * tells that there is a next page, whose cursor is the last kept id.
 */
export function cutPage<T extends { id: string }>(
  rows: T[],
  size: number = PAGE_SIZE,
): { rows: T[]; nextCursor: string | null } {
  if (rows.length <= size) return { rows, nextCursor: null };
  const kept = rows.slice(0, size);
  return { rows: kept, nextCursor: kept[kept.length - 1].id };
}
