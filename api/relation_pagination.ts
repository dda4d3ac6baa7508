/**
 * Paging of the relation lists (follow requests, blocks, mutes, endorsements,
 * domain blocks) by the id of the relation row, which the client never sees
 * except in the `Link` header, as Mastodon does for these older endpoints
 * (`max_id` for next, `since_id` for prev).
 */
import type { Context } from "hono";
import type { ApiEnv } from "./env.ts";
import { setPaginationHeaders } from "./pagination.ts";

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
