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
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { readBoolean, readString } from "../readers.ts";
import { ApiError } from "../errors.ts";
import { clampLimit, PAGE_SIZES, readPageParams } from "../pagination.ts";
import { loadAccountEntities } from "../entities/account.ts";
import { serializeStatusIds } from "../entities/status.ts";
import { serializeTags } from "../entities/tag.ts";
import { findAccountIds, MAX_QUERY_LENGTH, readOffset, splitQuery } from "./accounts_search.ts";
import { scopesIfToken, viewerAccountId } from "./accounts_access.ts";
import { isId } from "../../db/ids.ts";
import {
  filterViewableAccountIds,
  findViewableAccountByHandle,
} from "../../db/queries/accounts.ts";
import { visibleStatusIds } from "../../db/queries/visibility.ts";
import { searchTags } from "../../db/queries/tags.ts";
import { asksNothing, type Filter, parseSearch } from "../../db/queries/search_query.ts";
import { searchStatuses } from "../../db/queries/status_search.ts";
import { resolveUrl } from "../../federation/remote/resolve_url.ts";

type Kind = "accounts" | "statuses" | "hashtags";
const KINDS: readonly Kind[] = ["accounts", "statuses", "hashtags"];

/** Ids found per kind, before serialization. */
interface Found {
  accounts: string[];
  statuses: string[];
  hashtags: { id: string; name: string }[];
}

/** An id no account has: what an unknown `from:` handle filters by. */
const NOBODY = "0";

/** Reads the request, refusing what Mastodon refuses. */
async function readSearch(c: Context<ApiEnv>) {
  const p = await params(c);
  const q = (readString(p, "q") ?? "").trim().slice(0, MAX_QUERY_LENGTH);
  if (q === "") throw new ApiError(400, "param is missing or the value is empty: q");
  const viewerId = viewerAccountId(c);
  const resolve = readBoolean(p, "resolve") ?? false;
  const hasOffset = p.offset !== undefined && p.offset !== null && p.offset !== "";
  if (viewerId == null && hasOffset) {
    throw new ApiError(401, "Search queries pagination is not supported without authentication");
  }
  if (viewerId == null && resolve) {
    throw new ApiError(
      401,
      "Search queries that resolve remote resources are not supported without authentication",
    );
  }
  const type = readString(p, "type");
  if (type !== undefined && !KINDS.includes(type as Kind)) {
    throw new ApiError(422, "Validation failed: type must be one of accounts, statuses, hashtags");
  }
  const accountId = readString(p, "account_id");
  return {
    q,
    viewerId,
    resolve,
    type: type as Kind | undefined,
    limit: clampLimit(p.limit, PAGE_SIZES.search),
    offset: readOffset(p),
    page: readPageParams(p, PAGE_SIZES.search),
    following: readBoolean(p, "following") ?? false,
    excludeUnreviewed: readBoolean(p, "exclude_unreviewed") ?? false,
    // A value that is not an id names no account: no status matches it.
    accountId: accountId === undefined ? null : isId(accountId) ? accountId : NOBODY,
  };
}

type SearchRequest = Awaited<ReturnType<typeof readSearch>>;

/** The `from:` handles as account ids (`me` is the viewer; unknown ones match nobody). */
async function fromIds(
  c: Context<ApiEnv>,
  handles: Filter<string>[],
  viewerId: string,
): Promise<Filter<string>[]> {
  const { database, config } = c.get("ctx");
  const localDomain = config.domain.toLowerCase();
  return await Promise.all(handles.map(async (f) => {
    if (f.value.toLowerCase() === "me") return { value: viewerId, negated: f.negated };
    const parts = splitQuery(f.value);
    const domain = parts?.domain == null || parts.domain === localDomain ? null : parts.domain;
    const account = parts
      ? await findViewableAccountByHandle(database, parts.username, domain)
      : null;
    return { value: account?.id ?? NOBODY, negated: f.negated };
  }));
}

/** What a URL resolves to, when the viewer may see it. */
async function urlResults(c: Context<ApiEnv>, req: SearchRequest): Promise<Found> {
  const found: Found = { accounts: [], statuses: [], hashtags: [] };
  if (req.offset > 0) return found;
  const ctx = c.get("ctx");
  const resolved = await resolveUrl(ctx, req.q);
  if (!resolved) return found;
  if (resolved.kind === "account" && (req.type ?? "accounts") === "accounts") {
    found.accounts = await filterViewableAccountIds(ctx.database, [resolved.account.id]);
  }
  if (resolved.kind === "status" && (req.type ?? "statuses") === "statuses") {
    const id = resolved.status.id;
    if ((await visibleStatusIds(ctx.database.db, req.viewerId, [id])).has(id)) {
      found.statuses = [id];
    }
  }
  return found;
}

/** Runs the searches the request asks for. */
async function find(c: Context<ApiEnv>, req: SearchRequest): Promise<Found> {
  const ctx = c.get("ctx");
  const { q, viewerId, type } = req;
  if (req.resolve && /^https?:\/\//i.test(q)) return await urlResults(c, req);
  const wants = (kind: Kind) => type === undefined || type === kind;
  // `@user`, `user@host`, `@user@host`; not `from:user@host`, which is an operator.
  const bareHandle = /^@?[^\s@:]+@[^\s@]+$|^@[^\s@:]+$/.test(q);
  const [accounts, statuses, hashtags] = await Promise.all([
    wants("accounts") && !(q.startsWith("#") || (q.includes("@") && q.includes(" ")))
      ? findAccountIds(ctx, {
        q,
        limit: req.limit,
        offset: req.offset,
        resolve: req.resolve,
        following: req.following,
        viewerId,
      })
      : [],
    wants("statuses") && viewerId != null && !bareHandle
      ? (async () => {
        const parsed = parseSearch(q);
        if (asksNothing(parsed)) return [];
        return await searchStatuses(ctx.database, {
          parsed,
          fromIds: await fromIds(c, parsed.from, viewerId),
          accountId: req.accountId,
          viewerId,
          maxId: req.page.maxId,
          minId: req.page.minId,
          limit: req.limit,
          offset: req.offset,
        });
      })()
      : [],
    wants("hashtags") && !q.includes("@")
      ? searchTags(ctx.database, {
        q,
        limit: req.limit,
        offset: req.offset,
        exactOnly: req.excludeUnreviewed,
      })
      : [],
  ]);
  return { accounts, statuses, hashtags };
}

/** The search routes, mounted at the root of the app. */
export function searchRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  for (const version of [1, 2] as const) {
    app.get(`/api/v${version}/search`, scopesIfToken("read:search"), async (c) => {
      const ctx = c.get("ctx");
      const req = await readSearch(c);
      const found = await find(c, req);
      const viewer = req.viewerId ? { accountId: req.viewerId } : null;
      const [accounts, statuses, hashtags] = await Promise.all([
        loadAccountEntities(ctx.database.db, ctx.mediaUrls, found.accounts),
        serializeStatusIds(ctx, found.statuses, viewer),
        version === 2
          ? serializeTags(ctx.database, ctx.config.origin, found.hashtags, viewer)
          : found.hashtags.map((t) => t.name),
      ]);
      return c.json({ accounts, statuses, hashtags });
    });
  }
  return app;
}
