/**
 * What the account lists read (api/routes/follow_requests.ts answers it as
 * JSON; the web app's /follow_requests renders it).
 *
 * and list members (api/routes/lists.ts; the web app's list edit page), an
 * account's followers and following (api/routes/accounts_lists.ts; the web
 * app's /@acct/followers and /following), and who favourited or boosted a
 * status (api/routes/interactions.ts; the web app's /statuses/:id/…_by).
 *
 * Decisions (kept from the routes): follow requests to the viewer, newest
 * first, paged by the request row's id (`max_id` next, `since_id` prev, as
 * Mastodon's older relation endpoints); deleted requesters are left out.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Params } from "../params.ts";
import {
  clampLimit,
  PAGE_SIZES,
  pageCursors,
  type PageRead,
  readPageParams,
} from "../pagination.ts";
import { type Account, loadAccountEntities } from "../entities/account.ts";
import { accounts, followRequests } from "../../db/schema/mod.ts";
import { pageWindow } from "../../db/queries/id_paging.ts";
import { listMembersPage } from "../../db/queries/timelines.ts";
import { type SQL, sql } from "drizzle-orm";
import { PUBLIC_VISIBILITY_SQL } from "../../db/queries/visibility.ts";
import { listableAccount, visibleToViewer } from "../../db/queries/accounts.ts";
import { newestFirst } from "../../db/queries/id_paging.ts";
import {
  type FollowListKind,
  isBlocking,
  pageFollowList,
  type ViewableAccount,
} from "../../db/queries/accounts.ts";

/** The accounts asking to follow `viewer`, a page. */
export async function readFollowRequests(
  ctx: AppContext,
  viewer: string,
  p: Params,
): Promise<PageRead<Account>> {
  const page = readPageParams(p, PAGE_SIZES.accounts);
  const { db } = ctx.database;
  const window = pageWindow(followRequests.id, page);
  const rows = await db.select({ id: followRequests.id, accountId: followRequests.accountId })
    .from(followRequests)
    .innerJoin(accounts, eq(accounts.id, followRequests.accountId))
    .where(
      and(eq(followRequests.targetAccountId, viewer), isNull(accounts.deletedAt), window.where),
    )
    .orderBy(window.order).limit(page.limit);
  if (window.reverse) rows.reverse();
  return {
    items: await loadAccountEntities(db, ctx.mediaUrls, rows.map((r) => r.accountId)),
    cursors: pageCursors(rows, (r) => r.id, {
      prevParam: "since_id",
      hasMore: rows.length >= page.limit,
    }),
    rows: rows.length,
  };
}

/**
 * The members of list `listId` (its owner checked by the caller), a page
 * paged by the membership row (`since_id` prev); `limit=0` lists every
 * member at once (Mastodon's documented special case), with no cursors.
 */
export async function readListMembers(
  ctx: AppContext,
  listId: string,
  p: Params,
): Promise<PageRead<Account>> {
  const { db } = ctx.database;
  const page = readPageParams(p, PAGE_SIZES.accounts);
  const all = p.limit != null && p.limit !== "" && Number(p.limit) === 0;
  const limit = all ? null : clampLimit(p.limit, PAGE_SIZES.accounts);
  const items = await listMembersPage(db, listId, { ...page, limit });
  return {
    items: await loadAccountEntities(db, ctx.mediaUrls, items.map((i) => i.accountId)),
    cursors: all ? null : pageCursors(items, (item) => item.cursor, {
      prevParam: "since_id",
      hasMore: items.length === limit,
    }),
    rows: items.length,
  };
}

/**
 * An account's followers or following as `viewerId` may see them, a page
 * (Mastodon's controllers): empty when the account is suspended, hides its
 * collections from someone else, or blocks the viewer; paged by the follow
 * rows, `next` only for a full page, `since_id` prev.
 */
export async function readFollowList(
  ctx: AppContext,
  kind: FollowListKind,
  account: Pick<ViewableAccount, "id" | "suspended" | "hideCollections">,
  viewerId: string | null,
  p: Params,
): Promise<PageRead<Account>> {
  const { database } = ctx;
  const page = readPageParams(p, PAGE_SIZES.accounts);
  const isOwner = viewerId === account.id;
  const hidden = account.suspended || (account.hideCollections && !isOwner) ||
    (viewerId != null && !isOwner && await isBlocking(database, account.id, viewerId));
  if (hidden) return { items: [], cursors: null, rows: 0 };
  const items = await pageFollowList(database, kind, account.id, viewerId, page);
  return {
    // Cursors come from the rows, so an account that vanished between the two
    // queries costs its entity but never breaks the paging.
    items: await loadAccountEntities(database.db, ctx.mediaUrls, items.map((i) => i.accountId)),
    cursors: pageCursors(items, (item) => item.cursor, {
      prevParam: "since_id",
      hasMore: items.length === page.limit,
    }),
    rows: items.length,
  };
}

/** Relation rows about a status that name accounts (favourites or boosts), aliased `r`. */
interface RelationSource {
  table: SQL;
  /** The column of `r` naming the status. */
  statusColumn: SQL;
  /** More conditions on `r`. */
  extra: SQL;
}

const FAVOURITED_BY: RelationSource = {
  table: sql`favourites`,
  statusColumn: sql`r.status_id`,
  // A favourite waiting for approval is not shown (nor counted) yet.
  extra: sql`NOT r.pending_approval`,
};

const REBLOGGED_BY: RelationSource = {
  table: sql`statuses`,
  statusColumn: sql`r.reblog_of_id`,
  extra: sql`r.deleted_at IS NULL AND r.visibility IN ${PUBLIC_VISIBILITY_SQL}
    AND NOT r.pending_approval`,
};

export type InteractionKind = "favourited_by" | "reblogged_by";

/**
 * The accounts that favourited (boosted) status `statusId`, which the
 * caller checked `viewer` may see: newest first, paged by the favourite
 * (boost) row, `since_id` prev, `next` only for a full page.
 */
export async function readInteractionAccounts(
  ctx: AppContext,
  kind: InteractionKind,
  statusId: string,
  viewer: string | null,
  p: Params,
): Promise<PageRead<Account>> {
  const source = kind === "favourited_by" ? FAVOURITED_BY : REBLOGGED_BY;
  const page = readPageParams(p, PAGE_SIZES.accounts);
  const { database, mediaUrls } = ctx;
  const window = pageWindow(sql`r.id`, page);
  const found = await database.rows<{ cursor: string | number; account_id: string | number }>(
    sql`SELECT r.id AS cursor, a.id AS account_id
      FROM ${source.table} r JOIN accounts a ON a.id = r.account_id
      WHERE ${source.statusColumn} = ${statusId}::bigint AND ${source.extra}
        AND ${window.where ?? sql`TRUE`}
        AND ${listableAccount()} AND ${visibleToViewer(viewer, { mutes: true })}
      ORDER BY ${window.order} LIMIT ${page.limit}`,
  );
  const items = newestFirst(
    found.map((r) => ({ cursor: String(r.cursor), accountId: String(r.account_id) })),
    window.reverse,
  );
  return {
    items: await loadAccountEntities(database.db, mediaUrls, items.map((i) => i.accountId)),
    cursors: pageCursors(items, (i) => i.cursor, {
      prevParam: "since_id",
      hasMore: items.length === page.limit,
    }),
    rows: items.length,
  };
}
