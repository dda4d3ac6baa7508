/**
 * Loading for the Status serializer (api/entities/status.ts). What every
 * viewer sees alike (status rows with their media, mentions, tags, emoji,
 * polls, applications and cards; Account entities) comes from the entity
 * cache (entity_cache.ts), and what it lacks from one statement
 * (status_content.ts). What depends on the viewer is read fresh for every
 * page, in ONE prepared statement (see {@link viewerQuery}): the quotes and
 * which quoted statuses the viewer may see, the viewer's favourites, boosts,
 * bookmarks, pins, muted threads and poll votes, which authors they follow
 * and which follow them (for quote approval and interaction policies). A
 * warm page costs that one statement.
 */
import { type SQL, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { statuses } from "../../db/schema/mod.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { prepared } from "../../db/queries/prepared.ts";
import { visibleOriginalFilter } from "../../db/queries/visibility.ts";
import type { Account } from "./account.ts";
import { loadContent, type StatusBundle } from "./status_content.ts";
import type { StatusRow, Viewer } from "./status.ts";

/** Everything loaded for a page, keyed by status id (or account/poll id). */
export interface Hydration {
  /** The rows shown: the page's, the statuses they boost, the quoted ones. */
  statuses: Map<string, StatusRow>;
  /** What each shown status shows besides its row. */
  bundles: Map<string, StatusBundle>;
  accounts: Map<string, Account>;
  /** The viewer's votes by poll id. */
  votes: Map<string, number[]>;
  quotes: Map<string, { state: string; quotedStatusId: string | null }>;
  /** Quoted statuses the viewer may see. */
  visibleQuoted: Set<string>;
  favourited: Set<string>;
  reblogged: Set<string>;
  bookmarked: Set<string>;
  pinned: Set<string>;
  mutedConversations: Set<string>;
  /**
   * Authors the viewer follows, among those whose policies ask
   * (quote_approval, interaction_policy: see the viewer statement).
   */
  followedAuthors: Set<string>;
  /** Authors who follow the viewer, among those with a stated interaction policy. */
  followersOfViewer: Set<string>;
  /** The viewer's actor IRI (matched against the IRIs a policy lists); "" when not read. */
  viewerUri: string;
  /** This server's origin (links in per-viewer notes). */
  origin: string;
  /** Entities the page's statuses share, by what they depend on (status.ts). */
  shared: Map<string, unknown>;
}

/** The distinct non-null ids, in first-seen order. */
export function unique(ids: Iterable<string | null | undefined>): string[] {
  const set = new Set<string>();
  for (const id of ids) if (id != null) set.add(id);
  return [...set];
}

/** Status rows by id (one prepared query; none when `ids` is empty). */
export async function statusRows(db: Executor, ids: string[]): Promise<StatusRow[]> {
  if (ids.length === 0) return [];
  return await prepared(
    db,
    "status_rows",
    () => db.select().from(statuses).where(anyId(statuses.id, IDS)).prepare("status_rows"),
  ).execute({ ids });
}

/** The placeholder every one-array query here is executed with. */
const IDS = sql.placeholder("ids");

/** What the viewer statement brings back. */
export interface ViewerRows {
  quotes: { statusId: string; state: string; quotedStatusId: string | null }[] | null;
  visibleQuoted: string[] | null;
  favourited?: string[] | null;
  reblogged?: string[] | null;
  bookmarked?: string[] | null;
  pinned?: string[] | null;
  muted?: string[] | null;
  followed?: string[] | null;
  followers?: string[] | null;
  viewerUri?: string | null;
  votes?: { pollId: string; choice: number }[] | null;
}

/**
 * What the viewer statement answers for a status its author created in the
 * current request, when it is neither a reply nor a quote (undefined for
 * any other): nothing at all. No one has favourited, boosted, bookmarked or
 * pinned it yet, its poll has no votes, its conversation is new (so not
 * muted), and it shows no quote. The answer to POST /api/v1/statuses saves
 * the statement.
 */
export function newOwnStatusViewerRows(row: StatusRow, viewerId: string): ViewerRows | undefined {
  if (row.accountId !== viewerId || row.inReplyToId || row.quotedStatusId || row.reblogOfId) {
    return undefined;
  }
  return emptyViewerRows([]);
}

/** ViewerRows of a viewer with nothing of their own on the statuses shown. */
export function emptyViewerRows(quotes: ViewerRows["quotes"]): ViewerRows {
  return {
    quotes,
    visibleQuoted: [],
    favourited: [],
    reblogged: [],
    bookmarked: [],
    pinned: [],
    muted: [],
    followed: [],
    followers: [],
    votes: [],
  };
}

/**
 * The one statement of what a page shows that depends on the viewer: given
 * the page's ids, the ids it boosts and the viewer, the quotes, which
 * quoted statuses the viewer may see (the one visibility module's filter),
 * and the viewer's flags and votes on everything shown. Anonymous viewers
 * get the quotes only.
 */
function viewerQuery(db: Executor, signedIn: boolean) {
  const { ctes, select, columns } = viewerParts(signedIn, {
    ids: sql`(${sql.placeholder("ids")}::bigint[] || ${sql.placeholder("boosted")}::bigint[])`,
  });
  const fields = Object.fromEntries(
    Object.entries(columns).map(([prop, column]) => [prop, sql.raw(`h.${column.name}`)]),
  );
  const name = signedIn ? "status_viewer" : "status_viewer_anonymous";
  return db.select(fields).from(sql`(WITH ${ctes} SELECT ${select}) AS h`).prepare(name);
}

/** The columns of a shown status the viewer statement reads. */
const SHOWN_COLUMNS = sql.raw(
  "id, account_id, poll_id, conversation_id, quote_approval_policy, visibility, interaction_policy",
);

/**
 * Where the viewer statement finds the statuses shown:
 * - `ids`: a bigint[] expression of the shown ids and the ids they boost;
 * - `page`: the name of a CTE of the same statement holding the page's
 *   `statuses` rows (status_page.ts). Its rows are read from it, not looked
 *   up again; only the statuses they boost and the quoted ones are.
 */
export type ViewerSource = { ids: SQL } | { page: string };

/**
 * The parts of the viewer statement for the viewer placeholder `viewer`:
 * its CTEs, its one row's select list, and the columns of that row
 * (property → column name and SQL type).
 *
 * Each flag is one index scan of the viewer's rows (`account_id = viewer
 * AND status_id = ANY(shown)`), not a probe per shown status: PostgreSQL
 * runs a subplan per row with an executor round each, and the per-row form
 * cost the home timeline a third of its statement.
 */
export function viewerParts(signedIn: boolean, source: ViewerSource) {
  const viewer = signedIn ? sql.placeholder("viewer") : null;
  const v = sql`${viewer}::bigint`;
  const page = "page" in source ? sql.raw(source.page) : null;
  const ids = "ids" in source ? source.ids : sql`(ARRAY(SELECT id FROM ${page})
      || ARRAY(SELECT reblog_of_id FROM ${page} WHERE reblog_of_id IS NOT NULL))`;
  const shownIds = sql`ANY(ARRAY(SELECT id FROM hs))`;
  const flags = signedIn
    ? sql`,
    ARRAY(SELECT f.status_id::text FROM favourites f
      WHERE f.account_id = ${v} AND f.status_id = ${shownIds}) AS favourited,
    ARRAY(SELECT r.reblog_of_id::text FROM statuses r WHERE r.reblog_of_id = ${shownIds}
      AND r.account_id = ${v} AND r.deleted_at IS NULL) AS reblogged,
    ARRAY(SELECT b.status_id::text FROM bookmarks b
      WHERE b.account_id = ${v} AND b.status_id = ${shownIds}) AS bookmarked,
    ARRAY(SELECT p.status_id::text FROM status_pins p
      WHERE p.account_id = ${v} AND p.status_id = ${shownIds}) AS pinned,
    ARRAY(SELECT m.conversation_id::text FROM conversation_mutes m WHERE m.account_id = ${v}
      AND m.conversation_id = ANY(ARRAY(SELECT conversation_id FROM hs
        WHERE conversation_id IS NOT NULL))) AS muted,
    ARRAY(SELECT DISTINCT h.account_id::text FROM hs h
      WHERE (h.quote_approval_policy = 'followers' OR h.visibility = 'private'
          OR h.interaction_policy IS NOT NULL)
        AND EXISTS (SELECT 1 FROM follows f
          WHERE f.account_id = ${v} AND f.target_account_id = h.account_id)) AS followed,
    ARRAY(SELECT DISTINCT h.account_id::text FROM hs h
      WHERE h.interaction_policy IS NOT NULL AND EXISTS (SELECT 1 FROM follows f
        WHERE f.account_id = h.account_id AND f.target_account_id = ${v})) AS followers,
    (SELECT uri FROM accounts WHERE id = ${v}) AS viewer_uri,
    (SELECT json_agg(json_build_object('pollId', pv.poll_id::text, 'choice', pv.choice))
      FROM poll_votes pv WHERE pv.account_id = ${v}
        AND pv.poll_id IN (SELECT poll_id FROM hs WHERE poll_id IS NOT NULL)) AS votes`
    : sql``;
  // The shown statuses: the page's rows as they are, then what they boost
  // and quote (or, without a page, every id looked up).
  const shown = page
    ? sql`SELECT ${SHOWN_COLUMNS} FROM ${page}
      UNION ALL SELECT ${SHOWN_COLUMNS} FROM statuses WHERE id IN (
        SELECT reblog_of_id FROM ${page} WHERE reblog_of_id IS NOT NULL
        UNION ALL SELECT id FROM hv)`
    : sql`SELECT ${SHOWN_COLUMNS} FROM statuses
      WHERE id IN (SELECT unnest(${ids}) UNION ALL SELECT id FROM hv)`;
  const ctes = sql`
    hq AS (SELECT status_id, state, quoted_status_id FROM quotes WHERE status_id = ANY(${ids})),
    hv AS (SELECT statuses.id FROM statuses
      WHERE statuses.id IN (SELECT quoted_status_id FROM hq WHERE state = 'accepted')
        AND ${visibleOriginalFilter(viewer)})
    ${signedIn ? sql`, hs AS (${shown})` : sql``}`;
  const select = sql`
    (SELECT json_agg(json_build_object('statusId', status_id::text, 'state', state,
      'quotedStatusId', quoted_status_id::text)) FROM hq) AS quotes,
    ARRAY(SELECT id::text FROM hv) AS visible_quoted
    ${flags}`;
  const columns: Record<string, { name: string; type: string }> = {
    quotes: { name: "quotes", type: "json" },
    visibleQuoted: { name: "visible_quoted", type: "text[]" },
  };
  if (signedIn) {
    const arrays = [
      "favourited",
      "reblogged",
      "bookmarked",
      "pinned",
      "muted",
      "followed",
      "followers",
    ];
    for (const name of arrays) columns[name] = { name, type: "text[]" };
    columns.viewerUri = { name: "viewer_uri", type: "text" };
    columns.votes = { name: "votes", type: "json" };
  }
  return { ctes, select, columns };
}

/** Loads everything a page of statuses shows for the viewer. */
export async function hydrate(
  ctx: AppContext,
  rows: StatusRow[],
  viewer: Viewer,
  viewerRows?: ViewerRows,
): Promise<Hydration> {
  const db = ctx.database.db;
  const cache = ctx.core.entityCache;
  const epoch = await cache.begin();
  const useCache = cache.enabled;

  const shown = new Map(rows.map((r) => [r.id, r]));
  const boostedIds = unique(rows.map((r) => r.reblogOfId)).filter((id) => !shown.has(id));
  const signedIn = viewer != null;
  // A page read with status_page.ts brought these in its own statement.
  const fresh = viewerRows ?? (await prepared(
    db,
    signedIn ? "status_viewer" : "status_viewer_anonymous",
    () => viewerQuery(db, signedIn),
  ).execute({
    ids: [...shown.keys()],
    boosted: boostedIds,
    ...(viewer ? { viewer: viewer.accountId } : {}),
  }) as unknown as ViewerRows[])[0];
  const visibleQuoted = new Set(fresh.visibleQuoted ?? []);

  // Bundles from the cache; the rest, with missing authors, from the database.
  const bundles = new Map<string, StatusBundle>();
  const accountsById = new Map<string, Account>();
  const missingStatuses: string[] = [];
  const missingAccounts = new Set<string>();
  const wantAccount = (id: string) => {
    if (accountsById.has(id) || missingAccounts.has(id)) return;
    const cached = useCache ? cache.accounts.get(id) : undefined;
    if (cached) accountsById.set(id, cached);
    else missingAccounts.add(id);
  };
  // Boosts show nothing of their own but their author.
  const originals = rows.filter((r) => r.reblogOfId == null).map((r) => r.id);
  for (const id of [...originals, ...boostedIds, ...visibleQuoted]) {
    if (bundles.has(id)) continue;
    const cached = useCache ? cache.statuses.get(id) : undefined;
    if (cached) {
      bundles.set(id, cached);
      wantAccount(cached.row.accountId);
    } else missingStatuses.push(id);
  }
  for (const row of rows) wantAccount(row.accountId);
  if (missingStatuses.length > 0 || missingAccounts.size > 0) {
    const loaded = await loadContent(db, ctx.mediaUrls, missingStatuses, [...missingAccounts]);
    for (const bundle of loaded.statuses) {
      bundles.set(bundle.row.id, bundle);
      if (useCache) cache.storeStatus(epoch, bundle);
    }
    for (const account of loaded.accounts) {
      accountsById.set(account.id, account);
      if (useCache) cache.storeAccount(epoch, account);
    }
  }

  // The page's own rows are the freshest; the others come with their bundles.
  for (const [id, bundle] of bundles) if (!shown.has(id)) shown.set(id, bundle.row);
  const votes = new Map<string, number[]>();
  for (const v of fresh.votes ?? []) {
    const list = votes.get(v.pollId);
    if (list) list.push(v.choice);
    else votes.set(v.pollId, [v.choice]);
  }
  return {
    statuses: shown,
    bundles,
    accounts: accountsById,
    votes,
    quotes: new Map((fresh.quotes ?? []).map((q) => [q.statusId, q])),
    visibleQuoted,
    favourited: new Set(fresh.favourited),
    reblogged: new Set(fresh.reblogged),
    bookmarked: new Set(fresh.bookmarked),
    pinned: new Set(fresh.pinned),
    mutedConversations: new Set(fresh.muted),
    followedAuthors: new Set(fresh.followed),
    followersOfViewer: new Set(fresh.followers),
    viewerUri: fresh.viewerUri ?? "",
    origin: ctx.config.origin,
    shared: new Map(),
  };
}
