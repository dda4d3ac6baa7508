/**
 * Lists about an account:
 * - GET /api/v1/accounts/:id/followers and /following (public) → Account[],
 *   paged by the follow rows (`Link` with max_id / since_id), 40 by default, 80 at most
 * - GET /api/v1/accounts/:id/endorsements (public, 4.4) → Account[], paged by account id
 * - GET /api/v1/accounts/:id/featured_tags (public) → FeaturedTag[]
 * - GET /api/v1/accounts/familiar_followers?id[]= (user + read:follows) → FamiliarFollowers[]
 *
 * Decisions, following Mastodon's controllers:
 * - Follow lists are empty (no `Link`) when the account is suspended, when it
 *   hides its collections and the viewer is someone else, or when it blocks
 *   the viewer. Endorsements and featured tags are empty for a suspended account.
 * - A signed-in viewer does not see accounts they block, that block them,
 *   that sit on a domain they blocked, or (follow lists only, as Mastodon)
 *   that they mute. Suspended and deleted accounts never appear.
 * - `next` is given only when the page came back full (Mastodon's
 *   `records_continue?`); `prev` uses `since_id`, as these older lists do.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { readStringArray } from "../readers.ts";
import { PAGE_SIZES, readPageParams, setLinkHeader, setPaginationHeaders } from "../pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { type Account, loadAccountEntities } from "../entities/account.ts";
import { featuredTagEntity } from "../entities/featured_tag.ts";
import { isId } from "../../db/ids.ts";
import {
  type AccountPageItem,
  familiarFollowers,
  featuredTagsOf,
  type FollowListKind,
  pageEndorsedAccounts,
} from "../../db/queries/accounts.ts";
import { accountFromPath, scopesIfToken, viewerAccountId } from "./accounts_access.ts";
import { readFollowList } from "../reads/accounts.ts";

/** The cap on `id[]` for familiar followers, as for the multiple-accounts route. */
const MAX_FAMILIAR_IDS = 40;

/** Serializes a page in order and sets its `Link` header. */
async function respondWithPage(
  c: Context<ApiEnv>,
  items: AccountPageItem[],
  limit: number,
): Promise<Response> {
  const { database, mediaUrls } = c.get("ctx");
  const entities = await loadAccountEntities(database.db, mediaUrls, items.map((i) => i.accountId));
  // Cursors come from the rows, so an account that vanished between the two
  // queries costs its entity but never breaks the paging.
  setPaginationHeaders(c, items, (item) => item.cursor, {
    prevParam: "since_id",
    hasMore: items.length === limit,
  });
  return c.json(entities);
}

/** The handler for followers or following. */
function followList(kind: FollowListKind) {
  return async (c: Context<ApiEnv>) => {
    const account = await accountFromPath(c);
    const read = await readFollowList(
      c.get("ctx"),
      kind,
      account,
      viewerAccountId(c),
      await params(c),
    );
    setLinkHeader(c, read.cursors);
    return c.json(read.items);
  };
}

/** The list routes, mounted by accounts.ts. */
export function accountListRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const readAccounts = scopesIfToken("read:accounts");

  app.get(
    "/api/v1/accounts/familiar_followers",
    requireUser("read:follows"),
    async (c) => {
      const { database, mediaUrls } = c.get("ctx");
      const requested = [...new Set(readStringArray(await params(c), "id") ?? [])];
      if (requested.length > MAX_FAMILIAR_IDS) {
        throw new ApiError(
          422,
          `Validation failed: Id has too many items (maximum is ${MAX_FAMILIAR_IDS})`,
        );
      }
      const items = await familiarFollowers(
        database,
        viewerAccountId(c)!,
        requested.filter((id) => isId(id)),
      );
      const accountIds = [...new Set(items.flatMap((item) => item.accountIds))];
      const entities = new Map<string, Account>(
        (await loadAccountEntities(database.db, mediaUrls, accountIds)).map((a) => [a.id, a]),
      );
      return c.json(items.map((item) => ({
        id: item.id,
        accounts: item.accountIds.map((id) => entities.get(id)).filter((a) => a != null),
      })));
    },
  );

  app.get("/api/v1/accounts/:id{[0-9]+}/followers", readAccounts, followList("followers"));
  app.get("/api/v1/accounts/:id{[0-9]+}/following", readAccounts, followList("following"));

  app.get("/api/v1/accounts/:id{[0-9]+}/endorsements", readAccounts, async (c) => {
    const { database } = c.get("ctx");
    const account = await accountFromPath(c);
    const page = readPageParams(await params(c), PAGE_SIZES.accounts);
    if (account.suspended) return c.json([]);
    const items = await pageEndorsedAccounts(database, account.id, viewerAccountId(c), page);
    return await respondWithPage(c, items, page.limit);
  });

  app.get("/api/v1/accounts/:id{[0-9]+}/featured_tags", async (c) => {
    const { config, database } = c.get("ctx");
    const account = await accountFromPath(c);
    if (account.suspended) return c.json([]);
    const rows = await featuredTagsOf(database, account.id);
    return c.json(rows.map((row) => featuredTagEntity(config.origin, account, row)));
  });

  return app;
}
