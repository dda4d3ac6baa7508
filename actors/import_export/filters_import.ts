/**
 * The import of a filters file (Mastodon 4.7, `custom_filters.json`, the
 * shape of filters_export.ts): each filter one row of the import, applied
 * through the filter commands (actors/filters/), so the API's rules and caps
 * hold. Merge: a filter with the same title gets the file's keywords it
 * lacks; otherwise the filter is created. Overwrite: every filter is deleted
 * first, once (removeAllFilters). A filter that expired is skipped (a failed
 * row). `statuses` entries that are http(s) URIs are resolved by the caller
 * (stored, or fetched), others ignored.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { customFilters } from "../../db/schema/mod.ts";
import { ValidationError } from "../../model/errors.ts";
import { createFilter, filtersChanged, filtersOf, updateFilter } from "../filters/filters.ts";
import { addFilterStatus } from "../filters/statuses.ts";
import { ImportFileError } from "./import.ts";

/** Filters one file may hold. */
export const MAX_IMPORTED_FILTERS = 1_000;

/** The rows of a filters file: each filter as one cell of JSON. */
export function parseFiltersJson(text: string): string[][] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ImportFileError("This is not a filters file (custom_filters.json).");
  }
  if (!Array.isArray(data) || data.some((f) => typeof f !== "object" || f == null)) {
    throw new ImportFileError("This is not a filters file (custom_filters.json).");
  }
  if (data.length > MAX_IMPORTED_FILTERS) {
    throw new ImportFileError(`The file holds more than ${MAX_IMPORTED_FILTERS} filters.`);
  }
  return data.map((f) => [JSON.stringify(f)]);
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

/** Finds (or fetches) the status of a URI; null when it cannot be had. */
export type StatusResolver = (uri: string) => Promise<{ id: string } | null>;

/** Applies one filter of the file; false when it could not be (bad, expired, over a cap). */
export async function importFilterRow(
  db: Db,
  accountId: string,
  cell: string,
  resolveStatus: StatusResolver,
): Promise<boolean> {
  const f = JSON.parse(cell) as Record<string, unknown>;
  const title = typeof f.title === "string" ? f.title.trim() : "";
  if (!title) return false;
  const expireAt = typeof f.expire_at === "string" ? Date.parse(f.expire_at) : NaN;
  const expiresIn = Number.isFinite(expireAt) ? Math.floor((expireAt - Date.now()) / 1000) : null;
  if (expiresIn != null && expiresIn <= 0) return false;
  const keywords = (Array.isArray(f.keywords_attributes) ? f.keywords_attributes : [])
    .filter((k): k is Record<string, unknown> => typeof k === "object" && k != null)
    .filter((k) => typeof k.keyword === "string" && k.keyword.trim() !== "")
    .map((k) => ({ keyword: k.keyword as string, wholeWord: k.whole_word !== false }));
  const existing = (await filtersOf(db, accountId)).find((x) => x.filter.title === title);
  let filterId: string;
  if (existing) {
    const known = new Set(existing.keywords.map((k) => k.keyword));
    const added = keywords.filter((k) => !known.has(k.keyword));
    if (added.length) await updateFilter(db, accountId, existing.filter.id, { keywords: added });
    filterId = existing.filter.id;
  } else {
    const created = await createFilter(db, accountId, {
      title,
      context: strings(f.context),
      action: typeof f.action === "string" ? f.action : undefined,
      expiresIn,
      keywords,
    });
    filterId = created.filter.id;
  }
  for (const uri of strings(f.statuses).filter((u) => /^https?:\/\//i.test(u))) {
    const status = await resolveStatus(uri);
    if (!status) continue;
    try {
      await addFilterStatus(db, accountId, filterId, status.id);
    } catch (error) {
      // Already in the filter, or not visible to the account: the rest goes on.
      if (!(error instanceof ValidationError)) throw error;
    }
  }
  return true;
}

/** Overwrite mode: deletes every filter of the account, at once. */
export async function removeAllFilters(db: Db, accountId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const gone = await tx.delete(customFilters).where(and(eq(customFilters.accountId, accountId)))
      .returning({ id: customFilters.id });
    if (gone.length) await filtersChanged(tx, accountId);
  });
}
