/**
 * Read queries about accounts that the Mastodon API (and later other readers)
 * share: finding an account someone may look at, the pages of follow and
 * endorsement lists, account search, familiar followers and featured tags.
 *
 * Every list query answers with ids only (plus the paging cursor); callers
 * hydrate a whole page with one batch load, so a page costs one query here
 * and one or two for the entities, never one per row.
 *
 * Visibility decisions, shared by every reader here:
 * - Deleted accounts (tombstones) are never shown.
 * - Local accounts whose sign-up is unconfirmed or awaiting approval are not
 *   shown either, as Mastodon 404s them until the user may sign in.
 * - Suspended accounts can be looked at directly (the entity blanks them)
 *   but appear in no list and no search.
 * - A signed-in viewer never sees, in lists and search, accounts they block,
 *   accounts that block them, or accounts on a domain they blocked.
 */
import { type SQL, sql } from "drizzle-orm";
import { pageWindow } from "./id_paging.ts";
import type { Database } from "../connection.ts";

/** Paging bounds on some id column, newest first unless `minId` is given. */
export interface IdPage {
  maxId: string | null;
  sinceId: string | null;
  minId: string | null;
  limit: number;
}

/** One row of a paged account list: the account and the row id it pages by. */
export interface AccountPageItem {
  /** The id of the row that orders the list (a follow, an account…): the paging cursor. */
  cursor: string;
  accountId: string;
}

/** What a direct look at an account needs before serializing it. */
export interface ViewableAccount {
  id: string;
  username: string;
  domain: string | null;
  suspended: boolean;
  hideCollections: boolean;
}

/** Which relations of the viewer hide an account from a list. */
export interface ViewerFilterOptions {
  /** Also hide accounts the viewer mutes (Mastodon does in follow lists). */
  mutes?: boolean;
}

/** Accepted as an `accounts` alias in the fragments below; always a constant. */
type Alias = "a";

function ident(alias: Alias): SQL {
  return sql.raw(alias);
}

/**
 * Not deleted, and, for local accounts, a confirmed and approved sign-up.
 * Local rows without a user (none today) count as visible.
 */
export function viewableAccount(alias: Alias = "a"): SQL {
  const a = ident(alias);
  return sql`${a}.deleted_at IS NULL AND (${a}.domain IS NOT NULL OR NOT EXISTS (
    SELECT 1 FROM users u WHERE u.account_id = ${a}.id
      AND (NOT u.approved OR u.confirmed_at IS NULL)))`;
}

/** Accounts that may appear in lists and search: viewable and not suspended. */
export function listableAccount(alias: Alias = "a"): SQL {
  return sql`${viewableAccount(alias)} AND ${ident(alias)}.suspended_at IS NULL`;
}

/**
 * Hides accounts the viewer blocks, that block the viewer, that sit on a
 * domain the viewer blocked, and (optionally) that the viewer mutes. Two
 * NOT EXISTS rather than one OR, so each side uses its own index.
 */
export function visibleToViewer(
  viewerId: string | null,
  options: ViewerFilterOptions = {},
  alias: Alias = "a",
): SQL {
  if (viewerId == null) return sql`TRUE`;
  const a = ident(alias);
  const viewer = sql`${viewerId}::bigint`;
  const parts = [
    sql`NOT EXISTS (SELECT 1 FROM blocks b
      WHERE b.account_id = ${viewer} AND b.target_account_id = ${a}.id)`,
    sql`NOT EXISTS (SELECT 1 FROM blocks b
      WHERE b.account_id = ${a}.id AND b.target_account_id = ${viewer})`,
    sql`(${a}.domain IS NULL OR NOT EXISTS (SELECT 1 FROM account_domain_blocks d
      WHERE d.account_id = ${viewer} AND lower(d.domain) = lower(${a}.domain)))`,
  ];
  if (options.mutes) {
    parts.push(sql`NOT EXISTS (SELECT 1 FROM mutes m
      WHERE m.account_id = ${viewer} AND m.target_account_id = ${a}.id
        AND (m.expires_at IS NULL OR m.expires_at > now()))`);
  }
  return sql.join(parts, sql` AND `);
}

/** The page's bounds on `column` (TRUE without any), and whether it is read upwards. */
function pageBounds(column: SQL, page: IdPage): { where: SQL; ascending: boolean } {
  const window = pageWindow(column, page);
  return { where: window.where ?? sql`TRUE`, ascending: window.reverse };
}

function idList(ids: readonly string[]): SQL {
  return sql.join(ids.map((id) => sql`${id}::bigint`), sql`, `);
}

async function pageRows(
  database: Database,
  query: (order: SQL) => SQL,
  ascending: boolean,
): Promise<AccountPageItem[]> {
  const rows = await database.rows<{ cursor: string | number; account_id: string | number }>(
    query(ascending ? sql`ASC` : sql`DESC`),
  );
  const items = rows.map((r) => ({ cursor: String(r.cursor), accountId: String(r.account_id) }));
  return ascending ? items.reverse() : items;
}

/** The account behind an id, if anyone may look at it (suspended ones included). */
export async function findViewableAccount(
  database: Database,
  id: string,
): Promise<ViewableAccount | null> {
  const [row] = await database.rows<Record<string, unknown>>(sql`
    SELECT a.id, a.username, a.domain, a.suspended_at IS NOT NULL AS suspended,
      a.hide_collections
    FROM accounts a WHERE a.id = ${id}::bigint AND ${viewableAccount()}`);
  return row ? toViewable(row) : null;
}

/** The viewable ones among `ids`, in the order given (unknown and hidden ids skipped). */
export async function filterViewableAccountIds(
  database: Database,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await database.rows<{ id: string | number }>(sql`
    SELECT a.id FROM accounts a WHERE a.id IN (${idList(ids)}) AND ${viewableAccount()}`);
  const found = new Set(rows.map((r) => String(r.id)));
  return [...new Set(ids)].filter((id) => found.has(id));
}

/**
 * The account with this handle: `domain` null for a local account. Username
 * and domain compare case-insensitively, as the unique handle index does.
 */
export async function findViewableAccountByHandle(
  database: Database,
  username: string,
  domain: string | null,
): Promise<ViewableAccount | null> {
  const [row] = await database.rows<Record<string, unknown>>(sql`
    SELECT a.id, a.username, a.domain, a.suspended_at IS NOT NULL AS suspended,
      a.hide_collections
    FROM accounts a
    WHERE lower(a.username) = ${username.toLowerCase()}
      AND lower(coalesce(a.domain, '')) = ${(domain ?? "").toLowerCase()}
      AND ${viewableAccount()}
    LIMIT 1`);
  return row ? toViewable(row) : null;
}

function toViewable(row: Record<string, unknown>): ViewableAccount {
  return {
    id: String(row.id),
    username: String(row.username),
    domain: row.domain == null ? null : String(row.domain),
    suspended: row.suspended === true,
    hideCollections: row.hide_collections === true,
  };
}

/** Whether `accountId` blocks `targetId`. */
export async function isBlocking(
  database: Database,
  accountId: string,
  targetId: string,
): Promise<boolean> {
  const rows = await database.rows(sql`
    SELECT 1 FROM blocks
    WHERE account_id = ${accountId}::bigint AND target_account_id = ${targetId}::bigint LIMIT 1`);
  return rows.length > 0;
}

/** Which side of the follows table a list reads. */
export type FollowListKind = "followers" | "following";

/**
 * A page of an account's followers or followings, ordered by the follow row
 * (newest follow first), the follow id being the cursor. Uses the
 * (target_account_id, id) index for followers.
 */
export async function pageFollowList(
  database: Database,
  kind: FollowListKind,
  accountId: string,
  viewerId: string | null,
  page: IdPage,
): Promise<AccountPageItem[]> {
  const [self, other] = kind === "followers"
    ? [sql`f.target_account_id`, sql`f.account_id`]
    : [sql`f.account_id`, sql`f.target_account_id`];
  const bounds = pageBounds(sql`f.id`, page);
  return await pageRows(
    database,
    (order) =>
      sql`
      SELECT f.id AS cursor, a.id AS account_id
      FROM follows f JOIN accounts a ON a.id = ${other}
      WHERE ${self} = ${accountId}::bigint AND ${bounds.where}
        AND ${listableAccount()} AND ${visibleToViewer(viewerId, { mutes: true })}
      ORDER BY f.id ${order} LIMIT ${page.limit}`,
    bounds.ascending,
  );
}

/**
 * A page of the accounts an account endorses (features on its profile).
 * Mastodon pages this list by account id, so the cursor is the account id.
 */
export async function pageEndorsedAccounts(
  database: Database,
  accountId: string,
  viewerId: string | null,
  page: IdPage,
): Promise<AccountPageItem[]> {
  const bounds = pageBounds(sql`a.id`, page);
  return await pageRows(
    database,
    (order) =>
      sql`
      SELECT a.id AS cursor, a.id AS account_id
      FROM endorsements e JOIN accounts a ON a.id = e.target_account_id
      WHERE e.account_id = ${accountId}::bigint AND ${bounds.where}
        AND ${listableAccount()} AND ${visibleToViewer(viewerId)}
      ORDER BY a.id ${order} LIMIT ${page.limit}`,
    bounds.ascending,
  );
}

/** One entry of familiar followers: a target and the viewer's followings that follow it. */
export interface FamiliarFollowersItem {
  id: string;
  accountIds: string[];
}

/**
 * For each target, in the order asked, the accounts the viewer follows that
 * follow it (newest follow first). Unknown, deleted and suspended targets are
 * skipped; a target that hides its collections from others gets an empty
 * list; followers that hide their own collections are left out, since
 * listing them would reveal whom they follow. Two queries in all.
 */
export async function familiarFollowers(
  database: Database,
  viewerId: string,
  targetIds: readonly string[],
): Promise<FamiliarFollowersItem[]> {
  const ids = [...new Set(targetIds)];
  if (ids.length === 0) return [];
  const targets = await database.rows<{ id: string | number; hide_collections: boolean }>(sql`
    SELECT a.id, a.hide_collections FROM accounts a
    WHERE a.id IN (${idList(ids)}) AND ${listableAccount()}`);
  const open = targets.filter((t) => !t.hide_collections || String(t.id) === viewerId)
    .map((t) => String(t.id));
  const byTarget = new Map<string, string[]>();
  if (open.length > 0) {
    const rows = await database.rows<{ target_id: string | number; account_id: string | number }>(
      sql`
      SELECT f2.target_account_id AS target_id, a.id AS account_id
      FROM follows f1
        JOIN accounts a ON a.id = f1.target_account_id
        JOIN follows f2 ON f2.account_id = a.id
      WHERE f1.account_id = ${viewerId}::bigint
        AND f2.target_account_id IN (${idList(open)})
        AND NOT a.hide_collections
        AND ${listableAccount()} AND ${visibleToViewer(viewerId)}
      ORDER BY f2.id DESC`,
    );
    for (const row of rows) {
      const target = String(row.target_id);
      const list = byTarget.get(target) ?? [];
      list.push(String(row.account_id));
      byTarget.set(target, list);
    }
  }
  const found = new Set(targets.map((t) => String(t.id)));
  return ids.filter((id) => found.has(id)).map((id) => ({
    id,
    accountIds: byTarget.get(id) ?? [],
  }));
}

/** What an account search looks for. */
export interface AccountSearch {
  /** Username prefix (without `@`), never empty. */
  username: string;
  /**
   * Domain prefix from `user@domain`; null when the query named no domain.
   * `localDomainMatches` says whether it is also a prefix of our own domain.
   */
  domain: string | null;
  localDomainMatches: boolean;
  /** The query names this exact account (`user`, `user@ourdomain`, `user@remote`). */
  exact: { username: string; domain: string | null } | null;
  /** An account resolved through WebFinger for this query; it ranks first. */
  resolvedId: string | null;
  /** The signed-in viewer; null for an anonymous search. */
  viewerId: string | null;
  /** Only accounts the viewer follows. */
  following: boolean;
  limit: number;
  offset: number;
}

/** Escapes LIKE wildcards so user input matches literally (`_` is common in usernames). */
export function likePrefix(value: string): string {
  return `${value.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/**
 * Account search: prefix match on the username, and on any word of the
 * display name; with `user@domain`, prefix match on both parts. Ordered:
 * the resolved account, the exact handle, an exact username, accounts the
 * viewer follows, then by followers. Returns account ids. Accounts a
 * moderator limited are found only by their exact handle, or by followers;
 * accounts the viewer blocks, is blocked by or whose domain it blocked only
 * by their exact handle (as Mastodon's exact match, so they can be unblocked).
 */
export async function searchAccounts(
  database: Database,
  search: AccountSearch,
): Promise<string[]> {
  const userLike = likePrefix(search.username);
  const wordLike = `% ${userLike}`;
  let matches: SQL;
  if (search.domain == null) {
    matches = sql`(lower(a.username) LIKE ${userLike} ESCAPE '\\'
      OR lower(a.display_name) LIKE ${userLike} ESCAPE '\\'
      OR lower(a.display_name) LIKE ${wordLike} ESCAPE '\\')`;
  } else {
    const domainLike = likePrefix(search.domain);
    const local = search.localDomainMatches ? sql`a.domain IS NULL OR` : sql``;
    matches = sql`(lower(a.username) LIKE ${userLike} ESCAPE '\\'
      AND (${local} lower(a.domain) LIKE ${domainLike} ESCAPE '\\'))`;
  }
  const resolved = search.resolvedId ? sql`a.id = ${search.resolvedId}::bigint` : null;
  const exact = search.exact
    ? sql`(lower(a.username) = ${search.exact.username.toLowerCase()}
        AND lower(coalesce(a.domain, '')) = ${(search.exact.domain ?? "").toLowerCase()})`
    : null;
  const followed = search.viewerId == null ? null : sql`EXISTS (SELECT 1 FROM follows f
    WHERE f.account_id = ${search.viewerId}::bigint AND f.target_account_id = a.id)`;
  // PostgreSQL refuses constants in ORDER BY: absent terms are left out.
  const order = [
    resolved && sql`${resolved} DESC`,
    exact && sql`${exact} DESC`,
    sql`lower(a.username) = ${search.username.toLowerCase()} DESC`,
    followed && sql`${followed} DESC`,
    sql`a.followers_count DESC`,
    sql`a.id ASC`,
  ].filter((term): term is SQL => term != null);
  // The account a full handle names (or WebFinger resolved) is found whatever
  // stands between it and the viewer: a block must be findable to be undone.
  const named = sql`(${resolved ?? sql`FALSE`} OR ${exact ?? sql`FALSE`})`;
  const rows = await database.rows<{ id: string | number }>(sql`
    SELECT a.id FROM accounts a
    WHERE (${resolved ?? sql`FALSE`} OR ${matches})
      AND ${listableAccount()} AND (${named} OR ${visibleToViewer(search.viewerId)})
      AND (a.silenced_at IS NULL OR ${named} OR ${followed ?? sql`FALSE`})
      AND ${search.following ? followed ?? sql`FALSE` : sql`TRUE`}
    ORDER BY ${sql.join(order, sql`, `)}
    LIMIT ${search.limit} OFFSET ${search.offset}`);
  return rows.map((r) => String(r.id));
}

/** A featured hashtag of a profile. */
export interface FeaturedTagRow {
  id: string;
  name: string;
  statusesCount: number;
  lastStatusAt: Date | null;
}

/** The hashtags an account features, oldest featured first. */
export async function featuredTagsOf(
  database: Database,
  accountId: string,
): Promise<FeaturedTagRow[]> {
  const rows = await database.rows<Record<string, unknown>>(sql`
    SELECT ft.id, t.name, ft.statuses_count, ft.last_status_at
    FROM featured_tags ft JOIN tags t ON t.id = ft.tag_id
    WHERE ft.account_id = ${accountId}::bigint
    ORDER BY ft.id ASC`);
  return rows.map((r) => ({
    id: String(r.id),
    name: String(r.name),
    statusesCount: Number(r.statuses_count),
    lastStatusAt: r.last_status_at == null ? null : new Date(r.last_status_at as string | Date),
  }));
}
