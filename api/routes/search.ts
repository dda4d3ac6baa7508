/**
 * GET /api/v2/search and GET /api/v1/search: accounts, statuses and
 * hashtags for one query, `{accounts: [], statuses: [], hashtags: []}`.
 *
 * Public; a token that comes along must carry `read:search` (or `read`).
 * As Mastodon's Api::V2::SearchController and SearchService:
 * - `q` is required (400 when missing or blank).
 * - Without a signed-in user, `offset` and `resolve=true` are refused with
 *   401, and statuses are not searched (accounts and hashtags are).
 * - `type` (accounts, statuses or hashtags) searches one kind only; other
 *   values are refused with 422 (Mastodon silently finds nothing).
 * - `limit` per kind: 20 by default, 40 at most; `offset` skips results.
 * - `resolve=true` with a URL: the account or status it names, fetched when
 *   unknown (federation/remote/resolve_url.ts), and nothing else. With a handle
 *   (`@user@host`): WebFinger, and the account ranks first.
 * - Accounts are not searched for a query starting with `#` or holding both
 *   `@` and a space; statuses not for a bare handle; hashtags not for a
 *   query holding `@`.
 * - Accounts: the account search of GET /api/v1/accounts/search
 *   (accounts_search.ts), with `following`.
 * - Statuses: full text with operators (db/queries/search_query.ts) over
 *   what the user may find (db/queries/status_search.ts), `account_id`,
 *   `max_id`, `min_id`.
 * - Hashtags: by name prefix; `exclude_unreviewed` keeps the exact name.
 *   v2 answers Tag entities; v1 (removed from Mastodon in 3.0, kept for old
 *   clients) answers their names, as it did.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { scopesIfToken, viewerAccountId } from "./accounts_access.ts";
import { findAll, readSearch } from "../reads/search.ts";
import { loadAccountEntities } from "../entities/account.ts";
import { serializeStatusIds } from "../entities/status.ts";

/** The search routes, mounted at the root of the app. */
export function searchRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/api/v2/search", scopesIfToken("read:search"), async (c) => {
    return c.json(await readSearch(c.get("ctx"), viewerAccountId(c), await params(c)));
  });
  app.get("/api/v1/search", scopesIfToken("read:search"), async (c) => {
    const ctx = c.get("ctx");
    const viewerId = viewerAccountId(c);
    const found = await findAll(ctx, viewerId, await params(c));
    const viewer = viewerId ? { accountId: viewerId } : null;
    const [accounts, statuses] = await Promise.all([
      loadAccountEntities(ctx.database.db, ctx.mediaUrls, found.accounts),
      serializeStatusIds(ctx, found.statuses, viewer),
    ]);
    return c.json({ accounts, statuses, hashtags: found.hashtags.map((t) => t.name) });
  });
  return app;
}
