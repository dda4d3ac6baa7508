/**
 * What the pending interaction requests read (GoToSocial's client API,
 * issue 34: api/routes/interaction_requests.ts answers it as JSON; the web
 * app's notifications page shows the first page, to accept or reject).
 *
 * Decisions (kept from the route): pending ones of the viewer's statuses,
 * newest first; `status_id`, `favourites`, `replies`, `reblogs` (default
 * true; all false → 400); paged by the request id, `since_id` for prev.
 */
import type { AppContext } from "../../context.ts";
import type { Params } from "../params.ts";
import { ApiError } from "../errors.ts";
import { readBoolean, readString } from "../readers.ts";
import { PAGE_SIZES, pageCursors, type PageRead, readPageParams } from "../pagination.ts";
import {
  type InteractionRequestJson,
  serializeInteractionRequests,
} from "../entities/interaction_request.ts";
import { isId } from "../../db/ids.ts";
import { interactionRequests } from "../../db/schema/mod.ts";
import { pendingRequestsPage } from "../../db/queries/interaction_requests.ts";
import { newestFirst, pageWindow } from "../../db/queries/id_paging.ts";

/** The filters of the list: which parameter keeps which request type. */
const TYPE_FILTERS = [["favourites", "favourite"], ["replies", "reply"], [
  "reblogs",
  "reblog",
]] as const;

/** A page of the requests waiting for `viewer`'s approval. */
export async function readInteractionRequests(
  ctx: AppContext,
  viewer: string,
  p: Params,
): Promise<PageRead<InteractionRequestJson>> {
  const types = TYPE_FILTERS.filter(([key]) => readBoolean(p, key) ?? true).map(([, type]) => type);
  if (types.length === 0) {
    throw new ApiError(400, "At least one of favourites, replies or reblogs must be true");
  }
  const statusId = readString(p, "status_id") || undefined;
  if (statusId && !isId(statusId)) return { items: [], cursors: null, rows: 0 };
  const page = readPageParams(p, PAGE_SIZES.notifications);
  const window = pageWindow(interactionRequests.id, page);
  const rows = await pendingRequestsPage(
    ctx.database.db,
    viewer,
    { statusId, types },
    window,
    page.limit,
  );
  newestFirst(rows, window.reverse);
  return {
    items: await serializeInteractionRequests(ctx, rows, viewer),
    cursors: pageCursors(rows, (r) => r.id, {
      prevParam: "since_id",
      hasMore: rows.length >= page.limit,
    }),
    rows: rows.length,
  };
}
