/**
 * Full-text search of statuses on the database itself (no search engine):
 * the `status_search` table (a tsvector per status, GIN index, kept in step
 * by triggers, migration 0012) queried with the parsed query of
 * search_query.ts.
 *
 * What a signed-in user can find, as Mastodon 4 decides it:
 * - their library: statuses they wrote, were mentioned in, favourited,
 *   bookmarked or boosted;
 * - public statuses (not unlisted) of accounts that allow being indexed
 *   (`accounts.indexable`);
 * and of those only what the visibility module lets them see
 * (db/queries/visibility.ts), minus authors they mute. `in:library` and
 * `in:public` keep one of the two parts.
 *
 * The query is a union of small queries, each ordered by status id and cut
 * at the page's end, so each stops early:
 * 1. the user's library (own statuses and interacted-with ones): the newest
 *    {@link LIBRARY_WINDOW} checked one by one, then, only when they do not
 *    fill the page, the GIN index for older own statuses and the remaining
 *    interacted-with ids;
 * 2. public statuses of indexable accounts: the newest {@link RECENT_WINDOW}
 *    index rows, then, only when they do not fill the page, the GIN index;
 *    with one author (`from:`, `account_id`), that author's statuses.
 * No part's cost rests on PostgreSQL's guess of how common a word is, which
 * is poor for all but the commonest words, with one exception: when that
 * guess is low ({@link GIN_FIRST_ROWS}: words each common but rarely
 * together, or words the statistics do not list), the GIN index is asked
 * first and once, for all parts. An exclusion (`-word`) is only a filter on a GIN step's
 * matches, never part of the index read.
 */
import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Database } from "../connection.ts";
import { minIdAt } from "../ids.ts";
import { notLimitedFilter, visibleOriginalFilter } from "./visibility.ts";
import {
  type Filter,
  hasPositiveText,
  type HasValue,
  type IsValue,
  type ParsedSearch,
  type SearchScope,
} from "./search_query.ts";

/** A status search, with `from:` handles already turned into account ids. */
export interface StatusSearch {
  parsed: ParsedSearch;
  /** Account ids of the `from:` filters; an unknown handle is an id no account has. */
  fromIds: Filter<string>[];
  /** Only statuses by this account (the `account_id` parameter). */
  accountId: string | null;
  viewerId: string;
  maxId: string | null;
  minId: string | null;
  limit: number;
  offset: number;
  /** Index rows read newest first before the GIN step (default {@link RECENT_WINDOW}). */
  recentWindow?: number;
  /** Library statuses checked newest first before the GIN step (default {@link LIBRARY_WINDOW}). */
  libraryWindow?: number;
  /**
   * Ask the GIN index first, skipping the newest rows (default: when
   * PostgreSQL's statistics put the words' matches at or under {@link GIN_FIRST_ROWS}).
   */
  ginFirst?: boolean;
}

/** The tsquery of the text terms, or null when the query has none. */
function textQuery(parsed: ParsedSearch): SQL | null {
  const parts = parsed.terms.map((t) => {
    const q = t.phrase
      ? sql`phraseto_tsquery('simple', ${t.text})`
      : sql`plainto_tsquery('simple', ${t.text})`;
    return t.negated ? sql`(!! ${q})` : q;
  });
  return parts.length ? sql.join(parts, sql` && `) : null;
}

/**
 * The condition a GIN step reads the index with: the words and phrases to
 * find, and any exclusion only as a check of the rows they match. Given
 * `word -the`, the index would otherwise read the posting list of `the`
 * too (most of the table) to rule its statuses out; the call form of `@@`
 * (ts_match_vq) is one the index cannot serve, so it stays a filter.
 */
function ginCondition(parsed: ParsedSearch): SQL {
  const full = textQuery(parsed);
  const positive = textQuery({ ...parsed, terms: parsed.terms.filter((t) => !t.negated) });
  if (!full || !positive) return full ? sql`ss.document @@ (${full})` : sql`TRUE`;
  if (!parsed.terms.some((t) => t.negated)) return sql`ss.document @@ (${full})`;
  return sql`ss.document @@ (${positive}) AND ts_match_vq(ss.document, ${full})`;
}

function hasCondition(value: HasValue): SQL {
  const media = (types: string[] | null) =>
    sql`EXISTS (SELECT 1 FROM media_attachments sm WHERE sm.status_id = s.id${
      types ? sql` AND sm.type IN (${sql.join(types.map((t) => sql`${t}`), sql`, `)})` : sql``
    })`;
  switch (value) {
    case "media":
      return media(null);
    case "image":
      return media(["image"]);
    case "video":
      return media(["video", "gifv"]);
    case "audio":
      return media(["audio"]);
    case "poll":
      return sql`s.poll_id IS NOT NULL`;
    case "link":
      return sql`EXISTS (SELECT 1 FROM statuses_preview_cards sp WHERE sp.status_id = s.id)`;
    case "embed":
      return sql`EXISTS (SELECT 1 FROM statuses_preview_cards sp
        JOIN preview_cards pc ON pc.id = sp.preview_card_id
        WHERE sp.status_id = s.id AND pc.type = 'video')`;
  }
}

function isCondition(value: IsValue): SQL {
  return value === "reply"
    ? sql`(s.in_reply_to_id IS NOT NULL OR s.in_reply_to_uri IS NOT NULL)`
    : sql`s.sensitive`;
}

function apply<T>(filters: Filter<T>[], condition: (value: T) => SQL): SQL[] {
  return filters.map((f) => f.negated ? sql`NOT ${condition(f.value)}` : condition(f.value));
}

/** Conditions on the status row `s` and the index row `ss`, other than the text. */
function rowConditions(search: StatusSearch): SQL[] {
  const { parsed } = search;
  return [
    ...authorConditions(search),
    ...apply(parsed.has, hasCondition),
    ...apply(parsed.is, isCondition),
    ...apply(parsed.language, (code) => sql`lower(coalesce(s.language, '')) = ${code}`),
    ...idBounds(search),
  ];
}

/** The one author the search is restricted to (a `from:` or `account_id`), if any. */
function oneAuthor(search: StatusSearch): string | null {
  return search.accountId ?? search.fromIds.find((f) => !f.negated)?.value ?? null;
}

/** `from:` and `account_id`, on the index row alone (its account index can serve them). */
function authorConditions(search: StatusSearch): SQL[] {
  const out = apply(search.fromIds, (id) => sql`ss.account_id = ${id}::bigint`);
  if (search.accountId) out.push(sql`ss.account_id = ${search.accountId}::bigint`);
  return out;
}

/**
 * The id range the search covers (the paging cursors and the date
 * operators), as conditions on `column`.
 */
function idBounds(search: StatusSearch, column = "ss.status_id"): SQL[] {
  const { parsed } = search;
  const c = sql.raw(column);
  const out: SQL[] = [];
  // Status ids are time-ordered: date bounds are id bounds, which the indexes use.
  if (parsed.before) out.push(sql`${c} < ${minIdAt(parsed.before)}::bigint`);
  if (parsed.after) out.push(sql`${c} >= ${minIdAt(parsed.after)}::bigint`);
  if (search.maxId) out.push(sql`${c} < ${search.maxId}::bigint`);
  if (search.minId) out.push(sql`${c} > ${search.minId}::bigint`);
  return out;
}

/**
 * How many index rows, newest first, the public part reads before it turns
 * to the GIN index: a word that fills a page within them is frequent, and
 * reading on is the fastest way; one that does not is rare (under one in
 * 200 statuses for a page of 20), and the GIN index finds it at once.
 */
export const RECENT_WINDOW = 4000;

/**
 * The same for the user's own and interacted-with statuses: how many of the
 * newest are checked one by one before the GIN index is asked.
 */
export const LIBRARY_WINDOW = 400;

/**
 * At or below this many matches, as PostgreSQL estimates them, the GIN index
 * is asked first: reading a few thousand matches costs less than the newest
 * rows' windows (measured over a million statuses: a word in 1% of them,
 * 13,000 matches, is faster through the windows). The estimate is trusted
 * only this far. It is good for words among the statistics' most common
 * elements, where it is this low for several words each common but rarely
 * together (it is the product of their frequencies). A word the statistics
 * do not list is guessed at 0.5% of statuses (5,000 over a million) or half
 * the least common listed word's frequency, whichever is lower; not being
 * listed, it is rarer than the listed words (as far as the sample shows),
 * so its matches stay near that bound. Words more correlated than the
 * product assumes cost at most the GIN matches of the rarest of them.
 */
export const GIN_FIRST_ROWS = 5000;

/** PostgreSQL's estimate of the statuses `condition` (on `ss`) matches. */
async function estimateRows(database: Database, condition: SQL): Promise<number> {
  const query = sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM status_search ss WHERE ${condition}`;
  // Not prepared, for the reason runSearch gives.
  const rows = database.pg
    ? await database.pg.unsafe(
      dialect.sqlToQuery(query).sql,
      dialect.sqlToQuery(query).params as never[],
      { prepare: false },
    )
    : await database.rows<Record<string, unknown>>(query);
  const plan = Object.values(rows[0] ?? {})[0];
  const parsed = typeof plan === "string" ? JSON.parse(plan) : plan;
  const estimate = Number(parsed?.[0]?.Plan?.["Plan Rows"]);
  return Number.isFinite(estimate) ? estimate : Infinity;
}

/** The parts of the union the scope asks for. */
function parts(scope: SearchScope): { library: boolean; public: boolean } {
  return { library: scope !== "public", public: scope !== "library" };
}

/**
 * The pieces every part of the search statement shares, decided once: the
 * order, the window, the conditions, whether the GIN index is asked first.
 */
interface SearchPlan {
  search: StatusSearch;
  /** The viewer, as a bigint parameter. */
  v: SQL;
  forward: boolean;
  order: SQL;
  /** The rows each part must find: the page and what it skips. */
  window: number;
  /** The conditions a status must meet, the text match included. */
  common: SQL;
  /** The same without the text match. */
  rest: SQL;
  /** Whether the query has words or phrases the GIN index can find. */
  gin: boolean;
  ginFirst: boolean;
  ginMatches: SQL;
  /** Where the GIN steps read (the materialized matches when asked first) and what they check. */
  ginSource: SQL;
  ginCond: SQL;
  recentWindow: number;
  libraryWindow: number;
  /** Past the edge of a window, in page order, and that edge. */
  older: SQL;
  edgeOf: SQL;
  /** The author conditions, each prefixed with AND. */
  authors: SQL;
}

/** What a part adds to the statement: common table expressions and branches of the union. */
interface SearchParts {
  ctes: SQL[];
  branches: SQL[];
}

async function planSearch(database: Database, search: StatusSearch): Promise<SearchPlan> {
  const v = sql`${search.viewerId}::bigint`;
  const forward = search.minId != null && search.maxId == null;
  const text = textQuery(search.parsed);
  const rest = sql.join([
    ...rowConditions(search),
    visibleOriginalFilter(search.viewerId, "s"),
    notLimitedFilter(search.viewerId, "s"),
    sql`NOT EXISTS (SELECT 1 FROM mutes smu WHERE smu.account_id = ${v}
      AND smu.target_account_id = s.account_id
      AND (smu.expires_at IS NULL OR smu.expires_at > now()))`,
  ], sql` AND `);
  const matches = text ? sql`ss.document @@ (${text})` : sql`TRUE`;
  const ginMatches = ginCondition(search.parsed);
  // The GIN index serves only a query with words or phrases to find.
  const gin = hasPositiveText(search.parsed);
  const ginFirst = gin && (search.ginFirst ??
    (await estimateRows(database, ginMatches)) <= GIN_FIRST_ROWS);
  return {
    search,
    v,
    forward,
    order: forward ? sql`ASC` : sql`DESC`,
    window: search.limit + search.offset,
    common: sql`${matches} AND ${rest}`,
    rest,
    gin,
    ginFirst,
    ginMatches,
    // Asked first, the GIN index is read once for all the parts' GIN steps.
    ginSource: ginFirst ? sql`gin_matches ss` : sql`status_search ss`,
    ginCond: ginFirst ? sql`TRUE` : ginMatches,
    // Asking the GIN index first is a window of one row (the steps below
    // need an edge to continue from).
    recentWindow: ginFirst ? 1 : search.recentWindow ?? RECENT_WINDOW,
    libraryWindow: ginFirst ? 1 : search.libraryWindow ?? LIBRARY_WINDOW,
    older: forward ? sql`>` : sql`<`,
    edgeOf: forward ? sql`max` : sql`min`,
    authors: sql.join(authorConditions(search).map((c) => sql` AND ${c}`), sql``),
  };
}

/** The id range as one condition on `column` (a constant, never input). */
function inRange(plan: SearchPlan, column: string): SQL {
  const bounds = idBounds(plan.search, column);
  return bounds.length ? sql.join(bounds, sql` AND `) : sql`TRUE`;
}

/**
 * Candidate ids (a subquery yielding `id` in page order) checked one by
 * one against `conditions`, in that order, until the page is full. OFFSET
 * 0 keeps both subqueries from being flattened into a join PostgreSQL
 * would plan from its guesses (merging with the whole index read
 * backwards, or checking every candidate before sorting).
 */
function probe(plan: SearchPlan, candidates: SQL, conditions: SQL): SQL {
  return sql`(SELECT c.id FROM (${candidates} OFFSET 0) c
      CROSS JOIN LATERAL (SELECT 1 FROM status_search ss JOIN statuses s ON s.id = ss.status_id
        WHERE ss.status_id = c.id AND ${conditions} OFFSET 0) hit
      ORDER BY c.id ${plan.order} LIMIT ${plan.window})`;
}

/**
 * The ids of the statuses the search finds, newest first (with `minId`: the
 * ones just above it, still newest first).
 *
 * Each part reads its newest rows first, then, for a query with words and
 * only when those did not fill the page, asks the GIN index for the rest
 * (`+ 0` keeps PostgreSQL from reading the primary key instead, backwards
 * or as a bitmap of the whole range). So a part's cost never rests on
 * PostgreSQL's guess of how common the words are: its statistics keep
 * only the commonest words and guess any other at 0.5% of statuses, and a
 * guess too high for a rare word had it read the whole index backwards
 * (0.6 s over a million statuses). A frequent word fills the page within
 * the newest rows; a rare one is found at once by the GIN index.
 */
export async function searchStatuses(database: Database, search: StatusSearch): Promise<string[]> {
  const plan = await planSearch(database, search);
  const want = parts(search.parsed.scope);
  const ctes: SQL[] = [];
  const branches: SQL[] = [];
  if (plan.ginFirst) {
    ctes.push(sql`gin_matches AS MATERIALIZED (
      SELECT ss.status_id, ss.account_id, ss.public FROM status_search ss
      WHERE ${plan.ginMatches} AND ${inRange(plan, "ss.status_id")})`);
  }
  for (const part of [want.library && libraryPart(plan), want.public && publicPart(plan)]) {
    if (!part) continue;
    ctes.push(...part.ctes);
    branches.push(...part.branches);
  }
  const withs = ctes.length ? sql`WITH ${sql.join(ctes, sql`, `)}` : sql``;
  const query = sql`${withs} SELECT id FROM (${sql.join(branches, sql` UNION `)}) found
    ORDER BY id ${plan.order} LIMIT ${search.limit} OFFSET ${search.offset}`;
  const rows = await runSearch(database, query);
  const ids = rows.map((r) => String(r.id));
  return plan.forward ? ids.reverse() : ids;
}

/** The library part: the user's own statuses and those they interacted with. */
function libraryPart(plan: SearchPlan): SearchParts {
  const { v, order, gin, libraryWindow } = plan;
  const mine = (column: string, from: SQL) =>
    sql`(SELECT ${sql.raw(column)} AS id FROM ${from} AND ${inRange(plan, column)}
        ORDER BY 1 ${order}${gin ? sql` LIMIT ${libraryWindow}` : sql``})`;
  const libraryIds = sql.join([
    mine("ss.status_id", sql`status_search ss WHERE ss.account_id = ${v}`),
    mine("status_id", sql`mentions WHERE account_id = ${v}`),
    mine("status_id", sql`favourites WHERE account_id = ${v}`),
    mine("status_id", sql`bookmarks WHERE account_id = ${v}`),
    mine("reblog_of_id", sql`statuses WHERE account_id = ${v} AND reblog_of_id IS NOT NULL`),
  ], sql` UNION `);
  if (!gin) {
    const candidates = sql`SELECT id FROM (${libraryIds}) ids ORDER BY id ${order}`;
    return { ctes: [], branches: [probe(plan, candidates, plan.common)] };
  }
  const ctes = [
    sql`library_window AS MATERIALIZED (
        SELECT id FROM (${libraryIds}) ids ORDER BY id ${order} LIMIT ${libraryWindow})`,
    sql`library_recent AS MATERIALIZED ${
      probe(plan, sql`SELECT id FROM library_window ORDER BY id ${order}`, plan.common)
    }`,
    sql`library_edge AS MATERIALIZED (
        SELECT ${plan.edgeOf}(id) AS id, count(*) AS n FROM library_window)`,
  ];
  return {
    ctes,
    branches: [sql`(SELECT id FROM library_recent)`, ...olderLibraryBranches(plan)],
  };
}

/** Past the library's window, when it did not fill the page: through the GIN index. */
function olderLibraryBranches(plan: SearchPlan): SQL[] {
  const { v, order, older, ginSource, ginCond } = plan;
  // All the statuses interacted with, without the window's cut.
  const interactedIds = sql`SELECT status_id AS id FROM mentions WHERE account_id = ${v}
      UNION SELECT status_id FROM favourites WHERE account_id = ${v}
      UNION SELECT status_id FROM bookmarks WHERE account_id = ${v}
      UNION SELECT reblog_of_id FROM statuses WHERE account_id = ${v}
        AND reblog_of_id IS NOT NULL`;
  const more = sql`(SELECT count(*) FROM library_recent) < ${plan.window}
        AND (SELECT n FROM library_edge) = ${plan.libraryWindow}`;
  const range = inRange(plan, "ss.status_id");
  // Older own statuses: the GIN index intersected with (account_id, status_id).
  const own = probe(
    plan,
    sql`SELECT ss.status_id + 0 AS id FROM ${ginSource}
          WHERE ${more} AND ss.account_id = ${v}
            AND ss.status_id + 0 ${older} (SELECT id FROM library_edge)
            AND ${range} AND ${ginCond}${plan.authors}
          ORDER BY 1 ${order}`,
    plan.common,
  );
  // Older interacted-with statuses: each checked in turn, or, when the
  // GIN index is asked first (its matches are few), its matches among them.
  const interacted = probe(
    plan,
    plan.ginFirst
      ? sql`SELECT ss.status_id + 0 AS id FROM ${ginSource}
            WHERE ${more} AND ss.status_id + 0 ${older} (SELECT id FROM library_edge)
              AND ${range} AND ${ginCond}
              AND ss.status_id + 0 IN (${interactedIds})
            ORDER BY 1 ${order}`
      : sql`SELECT id FROM (${interactedIds}) ids
            WHERE ${more} AND id ${older} (SELECT id FROM library_edge)
            ORDER BY id ${order}`,
    plan.common,
  );
  return [own, interacted];
}

/** The public part: public statuses of indexable accounts. */
function publicPart(plan: SearchPlan): SearchParts {
  const { order, common, rest } = plan;
  const indexable = sql`ss.public AND EXISTS (SELECT 1 FROM accounts ia
      WHERE ia.id = ss.account_id AND ia.indexable)`;
  const range = inRange(plan, "ss.status_id");
  const author = oneAuthor(plan.search);
  if (author) {
    // One author (`from:` or `account_id`): their statuses, newest first
    // through (account_id, status_id), each checked in turn; bounded by
    // that author's statuses, whatever the words.
    const candidates = sql`SELECT ss.status_id AS id FROM status_search ss
          WHERE ss.account_id = ${author}::bigint AND ${range}
          ORDER BY ss.status_id ${order}`;
    return { ctes: [], branches: [probe(plan, candidates, sql`${indexable} AND ${common}`)] };
  }
  if (!plan.gin) {
    // Without words, the newest first until the page is full.
    const candidates = sql`SELECT ss.status_id AS id FROM status_search ss
          WHERE ${range} AND ss.public${plan.authors}
          ORDER BY ss.status_id ${order}`;
    return { ctes: [], branches: [probe(plan, candidates, sql`${indexable} AND ${rest}`)] };
  }
  const recentRows = sql`(SELECT * FROM status_search ss WHERE ${range}
        ORDER BY ss.status_id ${order} LIMIT ${plan.recentWindow})`;
  const ctes = [
    sql`recent AS MATERIALIZED (
        SELECT ss.status_id AS id FROM ${recentRows} ss JOIN statuses s ON s.id = ss.status_id
        WHERE ${indexable} AND ${common}
        ORDER BY ss.status_id ${order} LIMIT ${plan.window})`,
    sql`edge AS MATERIALIZED (SELECT ${plan.edgeOf}(w.status_id) AS id FROM ${recentRows} w)`,
  ];
  // The GIN index's matches are sorted first, then checked newest first.
  const older = probe(
    plan,
    sql`SELECT ss.status_id + 0 AS id FROM ${plan.ginSource}
          WHERE (SELECT count(*) FROM recent) < ${plan.window}
            AND ss.status_id + 0 ${plan.older} (SELECT id FROM edge)
            AND ${range} AND ss.public AND ${plan.ginCond}${plan.authors}
          ORDER BY 1 ${order}`,
    sql`${indexable} AND ${rest}`,
  );
  return { ctes, branches: [sql`(SELECT id FROM recent)`, older] };
}

const dialect = new PgDialect();

/**
 * Runs the search statement with parallel workers and JIT off: workers cost
 * more to start than these small reads take, and a GIN step's estimate (a
 * plan for the rare case, most often skipped) is high enough to switch JIT
 * compilation on, which took seconds.
 *
 * On PostgreSQL the statement is not prepared, unlike every other query
 * (db/connection.ts): its text varies with the words and operators of the
 * query, so each distinct query would leave a prepared statement and its
 * plan on the connection for its lifetime, as many as a client cares to
 * send. The plan does not depend on how common the words are (the GIN-first
 * choice is made before, in the query text), so planning
 * it afresh each time (a few milliseconds) changes nothing else.
 */
async function runSearch(database: Database, query: SQL): Promise<{ id: string }[]> {
  const settings = "SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL jit = off";
  if (database.pg) {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return await database.pg.begin(async (tx) => {
      await tx.unsafe(settings);
      return await tx.unsafe<{ id: string }[]>(text, params as never[], { prepare: false });
    });
  }
  return await database.db.transaction(async (tx) => {
    for (const setting of settings.split("; ")) await tx.execute(sql.raw(setting));
    return await database.rows<{ id: string }>(query, tx);
  });
}
