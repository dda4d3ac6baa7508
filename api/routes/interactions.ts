/**
 * Interactions with a status, each answering the Status:
 * - POST /api/v1/statuses/:id/reblog (`visibility`) → the boost (wrapper
 *   Status), /unreblog → the boosted status (write:statuses)
 * - POST …/favourite, …/unfavourite (write:favourites)
 * - POST …/bookmark, …/unbookmark (write:bookmarks)
 * - POST …/mute, …/unmute: the status's conversation (write:mutes)
 * - POST …/pin, …/unpin (write:accounts)
 * - POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke → the quoting
 *   status (write:statuses; only the quoted author)
 * and the lists about a status:
 * - GET …/favourited_by, …/reblogged_by → Account[] (public; a token must
 *   carry read:accounts), paged by the favourite or boost row, 40/80
 * - GET …/quotes → accepted quotes visible to the viewer (read:statuses), 20/40
 *
 * Decisions:
 * - A status the caller may not see answers 404 "Record not found", exactly
 *   like a missing one or a malformed id (visibility module).
 * - Direct statuses and others' private ones cannot be boosted: 403 "This
 *   action is not allowed", as Mastodon's ReblogService.
 * - reblogged_by lists public and unlisted boosts only (Mastodon's
 *   `distributable_visibility`); both account lists leave out suspended and
 *   deleted accounts, and, for a signed-in viewer, accounts blocked either
 *   way, domain-blocked or muted. `next` only for a full page, `prev` with
 *   `since_id`, as Mastodon.
 */
import { type Context, Hono } from "hono";
import { and, eq, sql } from "drizzle-orm";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { readString } from "../readers.ts";
import { PAGE_SIZES, readPageParams, setLinkHeader, setPaginationHeaders } from "../pagination.ts";
import { type InteractionKind, readInteractionAccounts } from "../reads/accounts.ts";
import { requireUser } from "../middleware/scopes.ts";
import { serializeStatus, serializeStatuses, type StatusRow } from "../entities/status.ts";
import { isId } from "../../db/ids.ts";
import { quotes, statuses } from "../../db/schema/mod.ts";
import {
  canSeeStatus,
  findVisibleStatus,
  visibleStatusFilter,
} from "../../db/queries/visibility.ts";
import { favourite, unfavourite } from "../../actors/interactions/favourites.ts";
import { reblog, unreblog } from "../../actors/interactions/reblogs.ts";
import { bookmark, unbookmark } from "../../actors/interactions/bookmarks.ts";
import {
  muteConversation,
  unmuteConversation,
} from "../../actors/interactions/conversation_mutes.ts";
import { pin, unpin } from "../../actors/interactions/pins.ts";
import { revokeQuote } from "../../actors/interactions/quotes.ts";
import { relationshipError } from "./relationships.ts";
import { NOT_FOUND, scopesIfToken, viewerAccountId } from "./accounts_access.ts";
import { pageWindow } from "../../db/queries/id_paging.ts";

/** The signed-in account (the scope middleware guarantees a user). */
function me(c: Context<ApiEnv>): string {
  return c.get("user")!.accountId;
}

/** A status id path parameter; anything that cannot be an id is 404. */
export function statusIdParam(c: Context<ApiEnv>, name = "id"): string {
  const id = c.req.param(name);
  if (!isId(id)) throw new ApiError(404, NOT_FOUND);
  return id;
}

/** Runs a command and answers with the status it returns, as the caller sees it. */
async function answerStatus(
  c: Context<ApiEnv>,
  command: () => Promise<StatusRow>,
): Promise<Response> {
  let row: StatusRow;
  try {
    row = await command();
  } catch (error) {
    throw relationshipError(error);
  }
  const ctx = c.get("ctx");
  // Taking back a favourite (bookmark, boost) of a status that became hidden
  // works, but the answer never shows what the caller may not see.
  if (!await canSeeStatus(ctx.database.db, me(c), row)) throw new ApiError(404, NOT_FOUND);
  const json = await serializeStatus(ctx, row, { accountId: me(c) });
  if (!json) throw new ApiError(404, NOT_FOUND);
  return c.json(json);
}

/** The status behind `:id` as `viewer` may see it, or 404. */
async function statusFromPath(c: Context<ApiEnv>, viewer: string | null): Promise<StatusRow> {
  const id = statusIdParam(c);
  const row = await findVisibleStatus(c.get("ctx").database.db, viewer, id);
  if (!row) throw new ApiError(404, NOT_FOUND);
  return row;
}

/** One page of the accounts that favourited or boosted the path's status, newest first. */
async function accountPage(c: Context<ApiEnv>, kind: InteractionKind): Promise<Response> {
  const viewer = viewerAccountId(c);
  const status = await statusFromPath(c, viewer);
  const read = await readInteractionAccounts(
    c.get("ctx"),
    kind,
    status.id,
    viewer,
    await params(c),
  );
  setLinkHeader(c, read.cursors);
  return c.json(read.items);
}

/** The interaction routes, mounted at the root of the app. */
export function interactionRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const writeStatuses = requireUser("write:statuses");
  const writeFavourites = requireUser("write:favourites");
  const writeBookmarks = requireUser("write:bookmarks");
  const writeMutes = requireUser("write:mutes");
  const writeAccounts = requireUser("write:accounts");
  const ctx = (c: Context<ApiEnv>) => c.get("ctx");

  app.post("/api/v1/statuses/:id/reblog", writeStatuses, async (c) => {
    const id = statusIdParam(c);
    const visibility = readString(await params(c), "visibility");
    return await answerStatus(
      c,
      async () => (await reblog(ctx(c), me(c), id, { visibility })).boost,
    );
  });
  app.post("/api/v1/statuses/:id/unreblog", writeStatuses, async (c) => {
    const id = statusIdParam(c);
    return await answerStatus(c, () => unreblog(ctx(c), me(c), id));
  });

  const actions = [
    ["favourite", writeFavourites, favourite],
    ["unfavourite", writeFavourites, unfavourite],
    ["bookmark", writeBookmarks, bookmark],
    ["unbookmark", writeBookmarks, unbookmark],
    ["mute", writeMutes, muteConversation],
    ["unmute", writeMutes, unmuteConversation],
    ["pin", writeAccounts, pin],
    ["unpin", writeAccounts, unpin],
  ] as const;
  for (const [action, scope, command] of actions) {
    app.post(`/api/v1/statuses/:id/${action}`, scope, async (c) => {
      const id = statusIdParam(c);
      return await answerStatus(c, () => command(ctx(c), me(c), id));
    });
  }

  app.post("/api/v1/statuses/:id/quotes/:quoting_status_id/revoke", writeStatuses, async (c) => {
    const id = statusIdParam(c);
    const quotingId = statusIdParam(c, "quoting_status_id");
    return await answerStatus(c, () => revokeQuote(ctx(c), me(c), id, quotingId));
  });

  const readAccounts = scopesIfToken("read:accounts");
  app.get(
    "/api/v1/statuses/:id/favourited_by",
    readAccounts,
    (c) => accountPage(c, "favourited_by"),
  );
  app.get("/api/v1/statuses/:id/reblogged_by", readAccounts, (c) => accountPage(c, "reblogged_by"));

  app.get("/api/v1/statuses/:id/quotes", requireUser("read:statuses"), async (c) => {
    const viewer = me(c);
    const status = await statusFromPath(c, viewer);
    const page = readPageParams(await params(c), PAGE_SIZES.statuses);
    const window = pageWindow(quotes.id, page);
    const rows = await ctx(c).database.db.select({ cursor: quotes.id, status: statuses })
      .from(quotes)
      .innerJoin(statuses, eq(statuses.id, quotes.statusId))
      .where(and(
        eq(quotes.quotedStatusId, status.id),
        eq(quotes.state, "accepted"),
        window.where,
        visibleStatusFilter(viewer),
        // Others do not see quotes by accounts they mute (Mastodon's StatusFilter).
        status.accountId === viewer ? undefined : sql`NOT EXISTS (SELECT 1 FROM mutes qm
          WHERE qm.account_id = ${viewer}::bigint AND qm.target_account_id = ${statuses.accountId}
            AND (qm.expires_at IS NULL OR qm.expires_at > now()))`,
      ))
      .orderBy(window.order).limit(page.limit);
    if (window.reverse) rows.reverse();
    setPaginationHeaders(c, rows, (r) => r.cursor, {
      prevParam: "since_id",
      hasMore: rows.length === page.limit,
    });
    const json = await serializeStatuses(ctx(c), rows.map((r) => r.status), { accountId: viewer });
    return c.json(json);
  });

  return app;
}
