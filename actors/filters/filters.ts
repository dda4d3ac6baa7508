/**
 * Filters (v2): create, read, change and delete an account's filters, with
 * their keywords given inline (`keywords_attributes`, Rails' nested
 * attributes: items with an id change or, with `_destroy`, remove that
 * keyword; items without one add a keyword; all-blank items are ignored).
 *
 * Each command is one transaction; someone else's filter (or keyword id) is
 * NotFoundError, like an unknown one. Caps: see rules.ts.
 */
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import type { Db, Executor } from "../../db/connection.ts";
import { customFilterKeywords, customFilters, customFilterStatuses } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { publishStreamEvent } from "../streaming/bus.ts";
import {
  checkAction,
  checkContexts,
  checkKeyword,
  checkTitle,
  expiryFrom,
  limitReached,
  MAX_FILTERS,
  MAX_KEYWORDS_PER_ACCOUNT,
  MAX_KEYWORDS_PER_FILTER,
  normalizeContexts,
} from "./rules.ts";

export type FilterRow = typeof customFilters.$inferSelect;
export type FilterKeywordRow = typeof customFilterKeywords.$inferSelect;
export type FilterStatusRow = typeof customFilterStatuses.$inferSelect;

/** A filter with its keywords and statuses (oldest first), as the Filter entity shows it. */
export interface FilterWithRules {
  filter: FilterRow;
  keywords: FilterKeywordRow[];
  statuses: FilterStatusRow[];
}

/** One item of `keywords_attributes`. */
export interface KeywordAttributes {
  id?: string;
  keyword?: string;
  wholeWord?: boolean;
  destroy?: boolean;
}

/** What a create or an update may set; undefined leaves a field as it is. */
export interface FilterInput {
  title?: string;
  context?: string[];
  action?: string;
  /** Seconds from now; null clears the expiry. */
  expiresIn?: number | null;
  keywords?: KeywordAttributes[];
}

/** Loads filters with their keywords and statuses, in the order of `rows`. */
export async function withRules(db: Executor, rows: FilterRow[]): Promise<FilterWithRules[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [keywords, statuses] = await Promise.all([
    db.select().from(customFilterKeywords).where(inArray(customFilterKeywords.customFilterId, ids))
      .orderBy(asc(customFilterKeywords.id)),
    db.select().from(customFilterStatuses).where(inArray(customFilterStatuses.customFilterId, ids))
      .orderBy(asc(customFilterStatuses.id)),
  ]);
  return rows.map((filter) => ({
    filter,
    keywords: keywords.filter((k) => k.customFilterId === filter.id),
    statuses: statuses.filter((s) => s.customFilterId === filter.id),
  }));
}

/** The account's filters, oldest first, expired ones included (as Mastodon lists them). */
export async function filtersOf(db: Executor, accountId: string): Promise<FilterWithRules[]> {
  const rows = await db.select().from(customFilters)
    .where(eq(customFilters.accountId, accountId)).orderBy(asc(customFilters.id));
  return await withRules(db, rows);
}

/** The account's filter `filterId`, or NotFoundError. */
export async function findOwnFilterRow(
  db: Executor,
  accountId: string,
  filterId: string,
  lock = false,
): Promise<FilterRow> {
  const query = db.select().from(customFilters)
    .where(and(eq(customFilters.id, filterId), eq(customFilters.accountId, accountId)));
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw new NotFoundError();
  return row;
}

/** The account's filter `filterId` with its keywords and statuses, or NotFoundError. */
export async function findOwnFilter(
  db: Executor,
  accountId: string,
  filterId: string,
): Promise<FilterWithRules> {
  const [found] = await withRules(db, [await findOwnFilterRow(db, accountId, filterId)]);
  return found;
}

/**
 * Tells the owner's streams that their filters changed (`filters_changed`),
 * once per command that wrote filters, keywords or filter statuses, in its
 * transaction: apps then fetch the filters again.
 */
export async function filtersChanged(tx: Executor, accountId: string): Promise<void> {
  await publishStreamEvent(tx, { event: "filters_changed", accountId });
}

/** Whether a nested item says nothing at all (Rails' `reject_if: :all_blank`). */
function allBlank(item: KeywordAttributes): boolean {
  return item.id === undefined && (item.keyword ?? "") === "" && item.wholeWord === undefined;
}

function validate(input: FilterInput, creating: boolean): string[] | undefined {
  const problems = new Problems();
  if (creating || input.title !== undefined) checkTitle(problems, input.title ?? "");
  const contexts = input.context === undefined ? undefined : normalizeContexts(input.context);
  if (creating || contexts !== undefined) checkContexts(problems, contexts ?? []);
  if (input.action !== undefined) checkAction(problems, input.action);
  for (const item of input.keywords ?? []) {
    if (item.destroy || allBlank(item)) continue;
    if (item.keyword !== undefined || item.id === undefined) {
      checkKeyword(problems, item.keyword ?? "", "keywords");
    }
  }
  problems.throwIfAny();
  return contexts;
}

/**
 * Applies `keywords_attributes` to a filter (inside the caller's
 * transaction); returns how many keywords it wrote.
 */
async function applyKeywords(
  tx: Executor,
  filter: FilterRow,
  items: readonly KeywordAttributes[],
): Promise<number> {
  const now = new Date();
  let written = 0;
  for (const item of items) {
    if (allBlank(item)) continue;
    if (item.id === undefined) {
      if (item.destroy) continue;
      await tx.insert(customFilterKeywords).values({
        id: newId(),
        customFilterId: filter.id,
        accountId: filter.accountId,
        keyword: item.keyword!,
        wholeWord: item.wholeWord ?? true,
      });
      written++;
      continue;
    }
    const mine = and(
      eq(customFilterKeywords.id, item.id),
      eq(customFilterKeywords.customFilterId, filter.id),
    );
    const done = item.destroy
      ? await tx.delete(customFilterKeywords).where(mine).returning({ id: customFilterKeywords.id })
      : await tx.update(customFilterKeywords).set({
        ...(item.keyword !== undefined ? { keyword: item.keyword } : {}),
        ...(item.wholeWord !== undefined ? { wholeWord: item.wholeWord } : {}),
        updatedAt: now,
      }).where(mine).returning({ id: customFilterKeywords.id });
    // Rails answers a nested id that is not the filter's with RecordNotFound.
    if (done.length === 0) throw new NotFoundError();
    written++;
  }
  await checkKeywordCaps(tx, filter);
  return written;
}

/**
 * Serializes an account's writes that add filters or keywords, so the caps
 * hold under concurrent requests (taken after any filter row lock: no path
 * locks a filter while holding its account).
 */
export async function lockAccount(tx: Executor, accountId: string): Promise<void> {
  await tx.execute(sql`SELECT 1 FROM accounts WHERE id = ${accountId}::bigint FOR UPDATE`);
}

/** After keywords were added: the filter's and the account's keyword caps (rules.ts). */
export async function checkKeywordCaps(tx: Executor, filter: FilterRow): Promise<void> {
  const [{ inFilter, inAccount }] = await tx.select({
    inFilter: sql<
      number
    >`count(*) FILTER (WHERE ${customFilterKeywords.customFilterId} = ${filter.id}::bigint)`
      .mapWith(Number),
    inAccount: count(),
  }).from(customFilterKeywords).where(eq(customFilterKeywords.accountId, filter.accountId));
  if (inFilter > MAX_KEYWORDS_PER_FILTER) {
    limitReached(`A filter may hold at most ${MAX_KEYWORDS_PER_FILTER} keywords`);
  }
  if (inAccount > MAX_KEYWORDS_PER_ACCOUNT) {
    limitReached(`You have reached the maximum of ${MAX_KEYWORDS_PER_ACCOUNT} filter keywords`);
  }
}

/** Creates a filter with its keywords. */
export async function createFilter(
  db: Db,
  accountId: string,
  input: FilterInput,
): Promise<FilterWithRules> {
  const contexts = validate(input, true)!;
  return await db.transaction(async (tx) => {
    await lockAccount(tx, accountId);
    const [{ n }] = await tx.select({ n: count() }).from(customFilters)
      .where(eq(customFilters.accountId, accountId));
    if (n >= MAX_FILTERS) limitReached(`You have reached the maximum of ${MAX_FILTERS} filters`);
    const [filter] = await tx.insert(customFilters).values({
      id: newId(),
      accountId,
      title: input.title!.trim(),
      context: contexts,
      action: input.action ?? "warn",
      expiresAt: expiryFrom(input.expiresIn ?? null),
    }).returning();
    await applyKeywords(tx, filter, input.keywords ?? []);
    await filtersChanged(tx, accountId);
    return (await withRules(tx, [filter]))[0];
  });
}

/** Changes a filter and its keywords. */
export async function updateFilter(
  db: Db,
  accountId: string,
  filterId: string,
  input: FilterInput,
): Promise<FilterWithRules> {
  const contexts = validate(input, false);
  return await db.transaction(async (tx) => {
    let filter = await findOwnFilterRow(tx, accountId, filterId, true);
    if (input.keywords?.length) await lockAccount(tx, accountId);
    const changes: Partial<typeof customFilters.$inferInsert> = {};
    if (input.title !== undefined) changes.title = input.title.trim();
    if (contexts !== undefined) changes.context = contexts;
    if (input.action !== undefined) changes.action = input.action;
    if (input.expiresIn !== undefined) changes.expiresAt = expiryFrom(input.expiresIn);
    if (Object.keys(changes).length > 0) {
      [filter] = await tx.update(customFilters).set({ ...changes, updatedAt: new Date() })
        .where(eq(customFilters.id, filter.id)).returning();
    }
    const written = await applyKeywords(tx, filter, input.keywords ?? []);
    // A request that changes nothing announces nothing.
    if (Object.keys(changes).length > 0 || written > 0) await filtersChanged(tx, accountId);
    return (await withRules(tx, [filter]))[0];
  });
}

/** Deletes a filter with its keywords and statuses. */
export async function deleteFilter(db: Db, accountId: string, filterId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const gone = await tx.delete(customFilters)
      .where(and(eq(customFilters.id, filterId), eq(customFilters.accountId, accountId)))
      .returning({ id: customFilters.id });
    if (gone.length === 0) throw new NotFoundError();
    await filtersChanged(tx, accountId);
  });
}
