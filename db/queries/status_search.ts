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
 * The query is a union of three small queries, each ordered by status id
 * and cut at the page's end, so each stops early:
 * 1. the user's own statuses, through (account_id, status_id);
 * 2. the statuses they interacted with: a union of short id lists;
 * 3. public indexable statuses: the GIN index for rare words, or the
 *    primary key read backwards with the match as a filter for frequent
 *    ones (PostgreSQL chooses from the words' statistics, which is why the
 *    statement is planned for its own values, see {@link searchStatuses}).
 */
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../connection.ts";
import { minIdAt } from "../ids.ts";
import { visibleOriginalFilter } from "./visibility.ts";
import type { Filter, HasValue, IsValue, ParsedSearch, SearchScope } from "./search_query.ts";

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
  const out: SQL[] = [
    ...apply(search.fromIds, (id) => sql`ss.account_id = ${id}::bigint`),
    ...apply(parsed.has, hasCondition),
    ...apply(parsed.is, isCondition),
    ...apply(parsed.language, (code) => sql`lower(coalesce(s.language, '')) = ${code}`),
  ];
  if (search.accountId) out.push(sql`ss.account_id = ${search.accountId}::bigint`);
  // Status ids are time-ordered: date bounds are id bounds, which the indexes use.
  if (parsed.before) out.push(sql`ss.status_id < ${minIdAt(parsed.before)}::bigint`);
  if (parsed.after) out.push(sql`ss.status_id >= ${minIdAt(parsed.after)}::bigint`);
  if (search.maxId) out.push(sql`ss.status_id < ${search.maxId}::bigint`);
  if (search.minId) out.push(sql`ss.status_id > ${search.minId}::bigint`);
  return out;
}

/** The parts of the union the scope asks for. */
function parts(scope: SearchScope): { library: boolean; public: boolean } {
  return { library: scope !== "public", public: scope !== "library" };
}

/**
 * The ids of the statuses the search finds, newest first (with `minId`: the
 * ones just above it, still newest first).
 */
export async function searchStatuses(database: Database, search: StatusSearch): Promise<string[]> {
  const v = sql`${search.viewerId}::bigint`;
  const forward = search.minId != null && search.maxId == null;
  const order = forward ? sql`ASC` : sql`DESC`;
  const window = search.limit + search.offset;
  const text = textQuery(search.parsed);
  const common = sql.join([
    ...(text ? [sql`ss.document @@ (${text})`] : []),
    ...rowConditions(search),
    visibleOriginalFilter(search.viewerId, "s"),
    sql`NOT EXISTS (SELECT 1 FROM mutes smu WHERE smu.account_id = ${v}
      AND smu.target_account_id = s.account_id
      AND (smu.expires_at IS NULL OR smu.expires_at > now()))`,
  ], sql` AND `);
  const branch = (source: SQL, where: SQL) =>
    sql`(SELECT ss.status_id AS id FROM ${source}
      JOIN statuses s ON s.id = ss.status_id
      WHERE ${where} AND ${common}
      ORDER BY ss.status_id ${order} LIMIT ${window})`;
  const want = parts(search.parsed.scope);
  const branches: SQL[] = [];
  if (want.library) {
    branches.push(branch(sql`status_search ss`, sql`ss.account_id = ${v}`));
    branches.push(branch(
      sql`(SELECT status_id FROM mentions WHERE account_id = ${v}
        UNION SELECT status_id FROM favourites WHERE account_id = ${v}
        UNION SELECT status_id FROM bookmarks WHERE account_id = ${v}
        UNION SELECT reblog_of_id FROM statuses WHERE account_id = ${v}
          AND reblog_of_id IS NOT NULL) lib
        JOIN status_search ss ON ss.status_id = lib.status_id`,
      sql`TRUE`,
    ));
  }
  if (want.public) {
    branches.push(branch(
      sql`status_search ss`,
      sql`ss.public AND EXISTS (SELECT 1 FROM accounts ia
        WHERE ia.id = ss.account_id AND ia.indexable)`,
    ));
  }
  const query = sql`SELECT id::text AS id FROM (${sql.join(branches, sql` UNION `)}) found
    ORDER BY id ${order} LIMIT ${search.limit} OFFSET ${search.offset}`;
  // Planned for its own values: whether the GIN index or the primary key
  // read backwards is the faster way depends on how common the words are,
  // which a generic plan (the connection's default, db/connection.ts)
  // cannot know.
  const rows = await database.db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL plan_cache_mode = force_custom_plan`);
    return await database.rows<{ id: string }>(query, tx);
  });
  const ids = rows.map((r) => String(r.id));
  return forward ? ids.reverse() : ids;
}
