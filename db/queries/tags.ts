/**
 * Hashtag reads and the find-or-create shared by everything that names a
 * tag (posting, following, featuring).
 *
 * Names are stored as first seen and matched case-insensitively through the
 * unique index on `lower(name)`; input is NFKC-normalized first, so that
 * full-width or composed forms find the same tag, as Mastodon's
 * HashtagNormalizer does.
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Database, Executor } from "../connection.ts";
import { tags } from "../schema/mod.ts";
import { minIdAt, newId } from "../ids.ts";

/** A tags row. */
export type TagRow = typeof tags.$inferSelect;

/** Mastodon's Tag::HASHTAG_MAX_LENGTH. */
export const HASHTAG_MAX_LENGTH = 50;

// Ruby's [[:word:]] and [[:alpha:]] in Unicode mode, as in actors/formatting.
const WORD = "\\p{L}\\p{M}\\p{Nd}\\p{Pc}";
const ALPHA = "\\p{L}\\p{M}";
const SEPARATORS = "_\\u00B7\\u30FB\\u200C";
/** Mastodon's Tag::HASHTAG_NAME_RE: word characters with at least one letter. */
const HASHTAG_NAME_RE = new RegExp(
  `^(?:[${WORD}_][${WORD}${SEPARATORS}]*[${ALPHA}${SEPARATORS}][${WORD}${SEPARATORS}]*[${WORD}_]` +
    `|[${WORD}_]*[${ALPHA}][${WORD}_]*)$`,
  "u",
);

/** The normalized form of a hashtag name as typed (a leading `#` is dropped). */
export function normalizeTagName(input: string): string {
  return input.replace(/^[#＃]/, "").normalize("NFKC");
}

/** Whether a (normalized) name is a valid hashtag name. */
export function isValidTagName(name: string): boolean {
  return name.length > 0 && [...name].length <= HASHTAG_MAX_LENGTH && HASHTAG_NAME_RE.test(name);
}

/** Tags by name, case-insensitively; keyed by the lower-cased name. */
export async function findTagsByName(
  db: Executor,
  names: readonly string[],
): Promise<Map<string, TagRow>> {
  const lowered = [...new Set(names.map((n) => normalizeTagName(n).toLowerCase()))];
  const out = new Map<string, TagRow>();
  if (lowered.length === 0) return out;
  const rows = await db.select().from(tags).where(inArray(sql`lower(${tags.name})`, lowered));
  for (const row of rows) out.set(row.name.toLowerCase(), row);
  return out;
}

/** One tag by name (case-insensitive), or null. */
export async function findTagByName(db: Executor, name: string): Promise<TagRow | null> {
  const found = await findTagsByName(db, [name]);
  return found.get(normalizeTagName(name).toLowerCase()) ?? null;
}

/**
 * Finds or creates tags by name; keyed by the lower-cased name. Names must
 * be valid (the caller checked them). A concurrent creation of the same name
 * is absorbed by ON CONFLICT on the `lower(name)` index.
 */
export async function findOrCreateTags(
  db: Executor,
  names: readonly string[],
): Promise<Map<string, TagRow>> {
  const wanted = new Map<string, string>();
  for (const n of names) {
    const name = normalizeTagName(n);
    if (!wanted.has(name.toLowerCase())) wanted.set(name.toLowerCase(), name);
  }
  const found = await findTagsByName(db, [...wanted.values()]);
  const missing = [...wanted].filter(([lower]) => !found.has(lower)).map(([, name]) => name);
  if (missing.length) {
    await db.execute(
      sql`INSERT INTO tags (id, name) VALUES ${
        sql.join(missing.map((name) => sql`(${newId()}::bigint, ${name})`), sql`, `)
      } ON CONFLICT ((lower(name))) DO NOTHING`,
    );
    for (const [lower, row] of await findTagsByName(db, missing)) found.set(lower, row);
  }
  return found;
}

/** One day of a tag's history, as the Tag entity carries it. */
export interface TagHistoryDay {
  /** Unix seconds of the start of the day (UTC), as a string. */
  day: string;
  uses: string;
  accounts: string;
}

/** How many days of history the Tag entity shows. */
export const HISTORY_DAYS = 7;

function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/** The join tables that tie statuses to what has a daily history. */
const HISTORY_SOURCES = {
  tag: { table: "statuses_tags", column: "tag_id" },
  card: { table: "statuses_preview_cards", column: "preview_card_id" },
} as const;

/**
 * The last {@link HISTORY_DAYS} days of use of each tag (or preview card),
 * newest day first, from public, undeleted statuses (boosts excluded), in
 * one grouped query. Status ids are time-ordered, so the time window is an
 * id range on the join table's (target, status_id) index.
 */
export async function dailyHistories(
  database: Database,
  kind: keyof typeof HISTORY_SOURCES,
  targetIds: readonly string[],
  now = new Date(),
  executor?: Executor,
): Promise<Map<string, TagHistoryDay[]>> {
  const ids = [...new Set(targetIds)];
  const today = startOfUtcDay(now);
  const days = Array.from(
    { length: HISTORY_DAYS },
    (_, i) => new Date(today.getTime() - i * 86_400_000),
  );
  const since = days[days.length - 1];
  const counts = new Map<string, { uses: string; accounts: string }>();
  if (ids.length) {
    // Both names come from HISTORY_SOURCES, never from a request.
    const table = sql.raw(HISTORY_SOURCES[kind].table);
    const column = sql.raw(HISTORY_SOURCES[kind].column);
    const idList: SQL = sql.join(ids.map((id) => sql`${id}::bigint`), sql`, `);
    const rows = await database.rows<
      { target_id: string; day: string; uses: string; accounts: string }
    >(
      sql`SELECT j.${column}::text AS target_id,
          (extract(epoch FROM date_trunc('day', s.created_at AT TIME ZONE 'UTC')))::bigint::text AS day,
          count(*)::text AS uses, count(DISTINCT s.account_id)::text AS accounts
        FROM ${table} j JOIN statuses s ON s.id = j.status_id
        WHERE j.${column} IN (${idList}) AND j.status_id >= ${minIdAt(since)}::bigint
          AND s.created_at >= ${since.toISOString()}::timestamptz
          AND s.visibility = 'public' AND s.deleted_at IS NULL AND s.reblog_of_id IS NULL
          AND NOT s.pending_approval
        GROUP BY 1, 2`,
      executor,
    );
    for (const r of rows) {
      counts.set(`${r.target_id}:${r.day}`, { uses: r.uses, accounts: r.accounts });
    }
  }
  return new Map(ids.map((id) => [
    id,
    days.map((d) => {
      const day = String(d.getTime() / 1000);
      const c = counts.get(`${id}:${day}`);
      return { day, uses: c?.uses ?? "0", accounts: c?.accounts ?? "0" };
    }),
  ]));
}

/** The last {@link HISTORY_DAYS} days of use of each tag, newest day first. */
export function tagHistories(
  database: Database,
  tagIds: readonly string[],
  now = new Date(),
  executor?: Executor,
): Promise<Map<string, TagHistoryDay[]>> {
  return dailyHistories(database, "tag", tagIds, now, executor);
}

/** What a hashtag search asks (GET /api/v2/search). */
export interface TagSearch {
  /** The query, with or without `#`. */
  q: string;
  limit: number;
  offset: number;
  /**
   * Mastodon's `exclude_unreviewed`: only reviewed tags, and the tag named
   * exactly. We have no tag review, so only the exact tag remains.
   */
  exactOnly: boolean;
}

/**
 * Tags whose name starts with the query (case-insensitive), shortest name
 * first, then alphabetically, as Mastodon's Tag.search_for orders them.
 */
export async function searchTags(database: Database, search: TagSearch): Promise<TagRow[]> {
  const name = normalizeTagName(search.q.trim()).toLowerCase();
  if (name === "" || /\s/u.test(name)) return [];
  const escaped = name.replace(/[\\%_]/g, (ch) => `\\${ch}`);
  const match = search.exactOnly
    ? sql`lower(name) = ${name}`
    : sql`lower(name) LIKE ${`${escaped}%`} ESCAPE '\\'`;
  const rows = await database.rows<
    {
      id: string | number;
      name: string;
      created_at: string;
      display_name: string | null;
      usable: boolean;
    }
  >(
    sql`SELECT id, name, created_at, display_name, usable FROM tags WHERE ${match} AND listable
      ORDER BY length(name), lower(name), id LIMIT ${search.limit} OFFSET ${search.offset}`,
  );
  return rows.map((r) => ({
    id: String(r.id),
    name: r.name,
    createdAt: new Date(r.created_at),
    displayName: r.display_name,
    usable: r.usable,
    listable: true,
  }));
}

/** Of `names`, the tags staff made unusable (their stored names), for the posting check. */
export async function unusableTags(db: Executor, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const lowered = [...new Set(names.map((n) => n.toLowerCase()))];
  const rows = await db.select({ name: tags.name }).from(tags)
    .where(and(inArray(sql`lower(${tags.name})`, lowered), eq(tags.usable, false)));
  return rows.map((r) => r.name);
}
