/**
 * What a search reads (api/routes/search.ts answers it as JSON under
 * /api/v1/search and /api/v2/search; the web app's /search renders it).
 *
 * Decisions: those of the route (its header), kept here with the code.
 */
import type { AppContext } from "../../context.ts";
import { type Params } from "../params.ts";
import { readBoolean, readString } from "../readers.ts";
import { ApiError } from "../errors.ts";
import { clampLimit, PAGE_SIZES, readPageParams } from "../pagination.ts";
import { type Account, loadAccountEntities } from "../entities/account.ts";
import { serializeStatusIds, type StatusJson } from "../entities/status.ts";
import { serializeTags, type TagJson } from "../entities/tag.ts";
import {
  findAccountIds,
  MAX_QUERY_LENGTH,
  readOffset,
  splitQuery,
} from "../routes/accounts_search.ts";
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
export interface Found {
  accounts: string[];
  statuses: string[];
  hashtags: { id: string; name: string }[];
}

/** An id no account has: what an unknown `from:` handle filters by. */
const NOBODY = "0";

/** Reads the request, refusing what Mastodon refuses. */
function readSearchRequest(p: Params, viewerId: string | null) {
  const q = (readString(p, "q") ?? "").trim().slice(0, MAX_QUERY_LENGTH);
  if (q === "") throw new ApiError(400, "param is missing or the value is empty: q");
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

type SearchRequest = ReturnType<typeof readSearchRequest>;

/** The `from:` handles as account ids (`me` is the viewer; unknown ones match nobody). */
async function fromIds(
  ctx: AppContext,
  handles: Filter<string>[],
  viewerId: string,
): Promise<Filter<string>[]> {
  const { database, config } = ctx;
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
async function urlResults(ctx: AppContext, req: SearchRequest): Promise<Found> {
  const found: Found = { accounts: [], statuses: [], hashtags: [] };
  if (req.offset > 0) return found;
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
async function find(ctx: AppContext, req: SearchRequest): Promise<Found> {
  const { q, viewerId, type } = req;
  if (req.resolve && /^https?:\/\//i.test(q)) return await urlResults(ctx, req);
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
          fromIds: await fromIds(ctx, parsed.from, viewerId),
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

/** The v2 answer: accounts, statuses and hashtags for the query of `p`, as `viewerId` may find them. */
export async function readSearch(
  ctx: AppContext,
  viewerId: string | null,
  p: Params,
): Promise<{ accounts: Account[]; statuses: StatusJson[]; hashtags: TagJson[] }> {
  const found = await findAll(ctx, viewerId, p);
  const viewer = viewerId ? { accountId: viewerId } : null;
  const [accounts, statuses, hashtags] = await Promise.all([
    loadAccountEntities(ctx.database.db, ctx.mediaUrls, found.accounts),
    serializeStatusIds(ctx, found.statuses, viewer),
    serializeTags(ctx.database, ctx.config.origin, found.hashtags, viewer),
  ]);
  return { accounts, statuses, hashtags };
}

/** The ids a search finds (v1 answers the hashtags' names from them). */
export async function findAll(
  ctx: AppContext,
  viewerId: string | null,
  p: Params,
): Promise<Found> {
  return await find(ctx, readSearchRequest(p, viewerId));
}
