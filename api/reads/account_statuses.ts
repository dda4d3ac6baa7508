/**
 * What an account's posts read (GET /api/v1/accounts/:id/statuses answers
 * them as JSON and a Link header; the web app's profile renders them): one
 * account's statuses as the viewer may see them, newest first, through the
 * one serializer with the viewer's `account` filters, and the cursors.
 *
 * Decisions (kept from the route):
 * - Filters are Mastodon's AccountStatusesFilter: only_media,
 *   exclude_replies (replies to others; a thread of one's own stays),
 *   exclude_reblogs, exclude_direct, pinned, tagged (a hashtag name; an
 *   unknown one matches nothing).
 * - A suspended account shows nothing; private and direct statuses appear
 *   only for viewers allowed to see them (the query's visibility rule).
 */
import type { AppContext } from "../../context.ts";
import type { Params } from "../params.ts";
import { readBoolean, readString } from "../readers.ts";
import { PAGE_SIZES, type PageRead, type PageSize, readPageParams } from "../pagination.ts";
import type { StatusJson } from "../entities/status.ts";
import { accountStatuses, tagsByName } from "../../db/queries/timelines.ts";
import { type FeedViewer, statusPage } from "./timelines.ts";

/** The tag id `tagged` names: undefined without the parameter, null for an unknown tag. */
async function taggedId(ctx: AppContext, p: Params): Promise<string | null | undefined> {
  const tagged = readString(p, "tagged", { maxLength: 200 });
  if (!tagged) return undefined;
  const found = await tagsByName(ctx.database.db, [tagged]);
  return [...found.values()][0]?.id ?? null;
}

/** The statuses of `account` that `viewer` may see, with the API's filters and paging. */
export async function readAccountStatuses(
  ctx: AppContext,
  account: { id: string; suspended: boolean },
  viewer: FeedViewer,
  p: Params,
  size: PageSize = PAGE_SIZES.statuses,
): Promise<PageRead<StatusJson>> {
  const page = readPageParams(p, size);
  if (account.suspended) return { items: [], cursors: null, rows: 0 };
  const rows = await accountStatuses(ctx.database.db, account.id, viewer?.accountId ?? null, {
    onlyMedia: readBoolean(p, "only_media") ?? false,
    excludeReplies: readBoolean(p, "exclude_replies") ?? false,
    excludeReblogs: readBoolean(p, "exclude_reblogs") ?? false,
    excludeDirect: readBoolean(p, "exclude_direct") ?? false,
    pinned: readBoolean(p, "pinned") ?? false,
    taggedId: await taggedId(ctx, p),
  }, page);
  return await statusPage(ctx, rows, viewer, "account");
}
