/**
 * What the scheduled statuses list reads (GET /api/v1/scheduled_statuses
 * answers it as JSON and a Link header; the web app's /scheduled_statuses
 * page renders it): the account's scheduled statuses, newest id first, with
 * their reserved media, and the cursors (`max_id` / `min_id`).
 *
 * Decisions (kept from the route): a short page is the end (no `next`).
 */
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Params } from "../params.ts";
import { PAGE_SIZES, pageCursors, type PageRead, readPageParams } from "../pagination.ts";
import {
  type ScheduledStatusJson,
  serializeScheduledStatuses,
} from "../entities/scheduled_status.ts";
import { pageWindow } from "../../db/queries/id_paging.ts";
import { scheduledStatuses } from "../../db/schema/mod.ts";

/** A page of `accountId`'s scheduled statuses. */
export async function readScheduledStatuses(
  ctx: AppContext,
  accountId: string,
  p: Params,
): Promise<PageRead<ScheduledStatusJson>> {
  const page = readPageParams(p, PAGE_SIZES.scheduledStatuses);
  const window = pageWindow(scheduledStatuses.id, page);
  const rows = await ctx.database.db.select().from(scheduledStatuses)
    .where(and(eq(scheduledStatuses.accountId, accountId), window.where))
    .orderBy(window.order).limit(page.limit);
  if (window.reverse) rows.reverse();
  return {
    items: await serializeScheduledStatuses(ctx, rows),
    cursors: pageCursors(rows, (r) => r.id, { hasMore: rows.length >= page.limit }),
    rows: rows.length,
  };
}
