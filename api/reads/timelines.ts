/**
 * What the timelines read (api/routes/timelines.ts answers them as JSON and
 * a Link header; the web app's pages render them): the rows of a page, the
 * viewer's flags on them, the Status entities through the one serializer
 * with the viewer's filters of the feed's context, and the cursors.
 *
 * Decisions (kept from the route):
 * - An empty home page is the end of the feed, or a feed that was never
 *   built: that one is rebuilt now and read again, so the first read already
 *   shows it (Mastodon answers 206 and an empty page, which clients show as
 *   empty).
 * - Cursors come from the rows read, so a status the serializer skips (or a
 *   filter hides) never breaks paging.
 */
import type { AppContext } from "../../context.ts";
import type { Params } from "../params.ts";
import { readBoolean, readStringArray } from "../readers.ts";
import {
  PAGE_SIZES,
  pageCursors,
  type PageRead,
  type PageSize,
  readPageParams,
} from "../pagination.ts";
import { serializeStatuses, type StatusJson } from "../entities/status.ts";
import { readPageWithViewer } from "../entities/status_page.ts";
import type { ViewerRows } from "../entities/status_hydration.ts";
import {
  homePageQuery,
  homePageValues,
  listTimeline,
  publicTimeline,
  type PublicTimelineOptions,
  type StatusRow,
  tagsByName,
  tagTimeline,
} from "../../db/queries/timelines.ts";
import { isId } from "../../db/ids.ts";
import { findOwnList } from "../../actors/timelines/lists.ts";
import { NotFoundError } from "../../model/errors.ts";
import { rebuildHomeFeedIfEmpty } from "../../actors/timelines/regenerate.ts";
import { stillChosen } from "../../actors/timelines/home_receivers.ts";
import type { FilterContext } from "../../actors/filters/rules.ts";

/** Who reads: a signed-in account, or nobody (public feeds). */
export type FeedViewer = { accountId: string } | null;

/**
 * A page of statuses for `viewer`, with the viewer's filters of `context`
 * (none for the direct timeline), and its cursors.
 */
export async function statusPage(
  ctx: AppContext,
  rows: StatusRow[],
  viewer: FeedViewer,
  context: FilterContext | undefined,
  viewerRows?: ViewerRows,
): Promise<PageRead<StatusJson>> {
  const items = await serializeStatuses(ctx, rows, viewer, viewerRows, { context });
  return { items, cursors: pageCursors(rows, (row) => row.id), rows: rows.length };
}

/** The home feed of `viewer`: `max_id`/`min_id`/`since_id`/`limit` as the API's. */
export async function readHomeTimeline(
  ctx: AppContext,
  viewer: { accountId: string },
  p: Params,
  size: PageSize = PAGE_SIZES.timelines,
): Promise<PageRead<StatusJson>> {
  const { db } = ctx.database;
  const page = readPageParams(p, size);
  // The page and the viewer's flags on it in one statement (status_page.ts).
  const read = () =>
    readPageWithViewer(
      db,
      ctx.core.entityCache,
      homePageQuery(db, page, stillChosen),
      homePageValues(viewer.accountId, page),
    );
  let { rows, viewerRows } = await read();
  if (rows.length === 0 && await rebuildHomeFeedIfEmpty(db, viewer.accountId) > 0) {
    ({ rows, viewerRows } = await read());
  }
  return await statusPage(ctx, rows, viewer, "home", viewerRows);
}

/** The public feed's options: `local`, `remote`, `only_media`. */
export function publicOptions(p: Params): PublicTimelineOptions {
  return {
    local: readBoolean(p, "local") ?? false,
    remote: readBoolean(p, "remote") ?? false,
    onlyMedia: readBoolean(p, "only_media") ?? false,
  };
}

/** The public feed (local, remote, only_media) as `viewer` may see it. */
export async function readPublicTimeline(
  ctx: AppContext,
  viewer: FeedViewer,
  p: Params,
  size: PageSize = PAGE_SIZES.timelines,
): Promise<PageRead<StatusJson>> {
  const page = readPageParams(p, size);
  const rows = await publicTimeline(
    ctx.database.db,
    viewer?.accountId ?? null,
    publicOptions(p),
    page,
  );
  return await statusPage(ctx, rows, viewer, "public");
}

/** How many names each of any[], all[] and none[] contributes. */
export const TAGS_PER_MODE = 4;

/**
 * The hashtag feed of `name` (with `any[]`, `all[]`, `none[]`, `local`,
 * `remote`, `only_media`), or null for a hashtag never seen here. Each of
 * any[], all[] and none[] uses its first 4 names; an unknown name in all[]
 * matches nothing, unknown names in any[] and none[] are ignored.
 */
export async function readTagTimeline(
  ctx: AppContext,
  viewer: FeedViewer,
  name: string,
  p: Params,
  size: PageSize = PAGE_SIZES.timelines,
): Promise<PageRead<StatusJson> | null> {
  const { db } = ctx.database;
  const page = readPageParams(p, size);
  const names = (key: string) => (readStringArray(p, key) ?? []).slice(0, TAGS_PER_MODE);
  const any = names("any"), all = names("all"), none = names("none");
  const known = await tagsByName(db, [name, ...any, ...all, ...none]);
  const idOf = (n: string) =>
    known.get(n.replace(/^[#＃]/, "").normalize("NFKC").toLowerCase())?.id;
  const main = idOf(name);
  if (!main) return null;
  const allIds = all.map(idOf);
  const rows = await tagTimeline(
    db,
    viewer?.accountId ?? null,
    {
      any: [main, ...any.map(idOf).filter((id): id is string => id != null)],
      all: allIds.every((id) => id != null) ? allIds as string[] : null,
      none: none.map(idOf).filter((id): id is string => id != null),
    },
    publicOptions(p),
    page,
  );
  return await statusPage(ctx, rows, viewer, "public");
}

/** A list's feed, for its owner only (NotFoundError otherwise, as for an unknown id). */
export async function readListTimeline(
  ctx: AppContext,
  viewer: { accountId: string },
  listId: string,
  p: Params,
  size: PageSize = PAGE_SIZES.timelines,
): Promise<PageRead<StatusJson>> {
  const { db } = ctx.database;
  if (!isId(listId)) throw new NotFoundError("Record not found");
  await findOwnList(db, viewer.accountId, listId);
  const page = readPageParams(p, size);
  return await statusPage(
    ctx,
    await listTimeline(db, listId, viewer.accountId, page),
    viewer,
    "home",
  );
}
