/**
 * GET /api/v1/accounts/search (user + read:accounts) → Account[]: mention
 * autocomplete and people search.
 *
 * Parameters as Mastodon reads them: `q` (a blank query finds nothing),
 * `limit` (40 by default, 80 at most), `offset` (not a number or negative →
 * 0), `resolve` (WebFinger for a `user@host` or profile URL that is not
 * known yet), `following` (only accounts the caller follows).
 *
 * Matching: prefix of the username or of any word of the display name; with
 * `user@domain`, prefixes of both parts (our own domain matches local
 * accounts). The account the query names exactly comes first, then an exact
 * username, then accounts the caller follows, then the most followed.
 * Deleted and suspended accounts are never found. Accounts the caller blocks
 * or is blocked by, and accounts on domains the caller blocked, are found
 * only by their full handle (`user@domain`, `@user@domain`, or a local
 * `user`), as Mastodon's exact match is, so that a client can look up
 * whom to unblock; partial matches leave them out.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import type { AppContext } from "../../context.ts";
import { type Params, params } from "../params.ts";
import { readBoolean, readString } from "../readers.ts";
import { clampLimit, PAGE_SIZES } from "../pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { loadAccountEntities } from "../entities/account.ts";
import { searchAccounts } from "../../db/queries/accounts.ts";
import { parseAccountQuery, resolveRemoteAccount } from "../../federation/remote/accounts.ts";
import { viewerAccountId } from "./accounts_access.ts";

/** Longer queries are cut: no handle or display name is anywhere near this long. */
export const MAX_QUERY_LENGTH = 512;
/** Offsets past this find nothing worth the scan. */
const MAX_OFFSET = 10_000;

/** `offset` as Mastodon's `to_i` would read it, bounded. */
export function readOffset(p: Params): number {
  const raw = p.offset;
  const n = typeof raw === "number" ? raw : typeof raw === "string" ? parseInt(raw, 10) : 0;
  if (!Number.isFinite(n) || n < 0) return 0;
  return Math.min(Math.trunc(n), MAX_OFFSET);
}

/** What a query says once `@` and `acct:` are stripped: username and domain parts. */
export function splitQuery(q: string): { username: string; domain: string | null } | null {
  const cleaned = q.trim().replace(/^acct:/i, "").replace(/^@/, "").trim();
  if (cleaned === "") return null;
  const at = cleaned.indexOf("@");
  if (at === -1) return { username: cleaned, domain: null };
  const username = cleaned.slice(0, at);
  const domain = cleaned.slice(at + 1).toLowerCase();
  if (username === "") return null;
  return { username, domain: domain === "" ? null : domain };
}

/** An account search as both search routes ask it. */
export interface AccountQuery {
  q: string;
  limit: number;
  offset: number;
  /** WebFinger for a `user@host` or profile URL not known yet. */
  resolve: boolean;
  /** Only accounts the viewer follows (nothing for an anonymous viewer). */
  following: boolean;
  /** The signed-in viewer, or null. */
  viewerId: string | null;
}

/**
 * The ids of the accounts a query finds, best first: the matching, ranking
 * and resolving described above. Shared by this route and GET /api/v2/search.
 */
export async function findAccountIds(ctx: AppContext, query: AccountQuery): Promise<string[]> {
  const { config, database } = ctx;
  const parts = splitQuery(query.q);
  if (!parts) return [];
  if (query.following && query.viewerId == null) return [];
  const localDomain = config.domain.toLowerCase();
  const isLocal = parts.domain == null || parts.domain === localDomain;
  let resolvedId: string | null = null;
  // Only the first page asks the network: later pages are the same query.
  if (query.resolve && query.offset === 0) {
    const parsed = parseAccountQuery(query.q);
    if (parsed && (parsed.kind === "url" || parsed.domain !== localDomain)) {
      resolvedId = (await resolveRemoteAccount(ctx, query.q))?.id ?? null;
    }
  }
  return await searchAccounts(database, {
    username: parts.username,
    domain: parts.domain,
    localDomainMatches: parts.domain != null && localDomain.startsWith(parts.domain),
    exact: { username: parts.username, domain: isLocal ? null : parts.domain },
    resolvedId,
    viewerId: query.viewerId,
    following: query.following,
    limit: query.limit,
    offset: query.offset,
  });
}

/** The search route, mounted by accounts.ts. */
export function accountSearchRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/accounts/search", requireUser("read:accounts"), async (c) => {
    const ctx = c.get("ctx");
    const p = await params(c);
    const ids = await findAccountIds(ctx, {
      q: (readString(p, "q") ?? "").slice(0, MAX_QUERY_LENGTH),
      limit: clampLimit(p.limit, PAGE_SIZES.accounts),
      offset: readOffset(p),
      resolve: readBoolean(p, "resolve") ?? false,
      following: readBoolean(p, "following") ?? false,
      viewerId: viewerAccountId(c)!,
    });
    return c.json(await loadAccountEntities(ctx.database.db, ctx.mediaUrls, ids));
  });

  return app;
}
