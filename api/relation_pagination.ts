/**
 * Paging of the relation lists (follow requests, blocks, mutes, endorsements,
 * domain blocks) by the id of the relation row, which the client never sees
 * except in the `Link` header, as Mastodon does for these older endpoints
 * (`max_id` for next, `since_id` for prev).
 */
import type { Context } from "hono";
import { and, asc, desc, gt, lt, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { ApiEnv } from "./env.ts";
import { type PageParams, setPaginationHeaders } from "./pagination.ts";

/** Where and order clauses for one page over a relation table's id column. */
export function pageWindow(id: PgColumn, page: PageParams): {
  where: SQL | undefined;
  order: SQL;
  /** Rows come oldest first (min_id paging) and must be reversed. */
  reverse: boolean;
} {
  const bounds = and(
    page.maxId ? lt(id, page.maxId) : undefined,
    page.sinceId ? gt(id, page.sinceId) : undefined,
    page.minId ? gt(id, page.minId) : undefined,
  );
  const forward = page.minId != null;
  return { where: bounds, order: forward ? asc(id) : desc(id), reverse: forward };
}

/** Sets the Link header for a page of relation rows (newest first). */
export function linkRelationPage(
  c: Context<ApiEnv>,
  rows: readonly { id: string }[],
  limit: number,
): void {
  setPaginationHeaders(c, rows, (r) => r.id, {
    prevParam: "since_id",
    hasMore: rows.length >= limit,
  });
}
