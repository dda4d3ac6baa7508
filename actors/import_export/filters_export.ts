/**
 * The export of one's filters (Mastodon 4.7, `custom_filters.json`): every
 * filter, oldest first, in Mastodon's shape: title, `expire_at` (ISO or
 * null), context, action, `keywords_attributes` ({keyword, whole_word}) and
 * `statuses`. Rookery writes the statuses' URIs there, which an import can
 * resolve (Mastodon's own file holds what cannot be imported back).
 */
import { count, eq, inArray } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { customFilters, statuses } from "../../db/schema/mod.ts";
import { filtersOf } from "../filters/filters.ts";

/** One filter of the file. */
export interface ExportedFilter {
  title: string;
  expire_at: string | null;
  context: string[];
  action: string;
  keywords_attributes: { keyword: string; whole_word: boolean }[];
  statuses: string[];
}

/** How many filters the account has (the export page's count). */
export async function countFilters(db: Executor, accountId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(customFilters)
    .where(eq(customFilters.accountId, accountId));
  return Number(row?.n ?? 0);
}

/** The account's filters as the export file holds them. */
export async function exportFilters(db: Executor, accountId: string): Promise<ExportedFilter[]> {
  const filters = await filtersOf(db, accountId);
  const statusIds = [...new Set(filters.flatMap((f) => f.statuses.map((s) => s.statusId)))];
  const uris = new Map(
    statusIds.length
      ? (await db.select({ id: statuses.id, uri: statuses.uri }).from(statuses)
        .where(inArray(statuses.id, statusIds))).map((r) => [r.id, r.uri])
      : [],
  );
  return filters.map(({ filter, keywords, statuses: held }) => ({
    title: filter.title,
    expire_at: filter.expiresAt?.toISOString() ?? null,
    context: filter.context,
    action: filter.action,
    keywords_attributes: keywords.map((k) => ({ keyword: k.keyword, whole_word: k.wholeWord })),
    statuses: held.flatMap((s) => uris.get(s.statusId) ?? []),
  }));
}
