/**
 * Newer/Older links of an app page from the cursors its read returned
 * (api/pagination.ts PageRead), the same cursors the API's Link header
 * carries, on the request's own URL with its other parameters kept.
 */
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { type PageParams, type PageRead, type PageSize, pageUrl } from "../../../api/pagination.ts";
import { pageLinksOf } from "../page_links.ts";
import type { PagerLinks } from "../../pages/app/pager.tsx";

export function pagerLinks<T>(
  c: Context<ApiEnv>,
  page: PageParams,
  size: PageSize,
  read: PageRead<T>,
): PagerLinks {
  const { cursors } = read;
  const ends = cursors?.prev
    ? { first: cursors.prev, last: cursors.next ?? cursors.prev, count: read.rows }
    : null;
  const links = pageLinksOf(page, size, ends, (cursor) => pageUrl(c, cursor));
  // A list that knows its end has no `next` cursor: no Older link.
  return { newer: links.newer, older: cursors?.next ? links.older : null };
}
