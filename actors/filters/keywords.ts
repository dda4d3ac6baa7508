/**
 * A filter's keywords one at a time (/api/v2/filters/:id/keywords and
 * /api/v2/filters/keywords/:id). A keyword id of another account's filter is
 * NotFoundError, like an unknown one.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Db, Executor } from "../../db/connection.ts";
import { customFilterKeywords } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { checkKeyword } from "./rules.ts";
import {
  checkKeywordCaps,
  type FilterKeywordRow,
  filtersChanged,
  findOwnFilterRow,
  lockAccount,
} from "./filters.ts";

/** What adding or changing a keyword sets; undefined leaves it as it is. */
export interface KeywordInput {
  keyword?: string;
  wholeWord?: boolean;
}

function validate(input: KeywordInput, creating: boolean): void {
  const problems = new Problems();
  if (creating || input.keyword !== undefined) checkKeyword(problems, input.keyword ?? "");
  problems.throwIfAny();
}

/** The keywords of the account's filter, oldest first. */
export async function keywordsOf(
  db: Executor,
  accountId: string,
  filterId: string,
): Promise<FilterKeywordRow[]> {
  await findOwnFilterRow(db, accountId, filterId);
  return await db.select().from(customFilterKeywords)
    .where(eq(customFilterKeywords.customFilterId, filterId)).orderBy(asc(customFilterKeywords.id));
}

/** Adds a keyword to the account's filter. */
export async function addKeyword(
  db: Db,
  accountId: string,
  filterId: string,
  input: KeywordInput,
): Promise<FilterKeywordRow> {
  validate(input, true);
  return await db.transaction(async (tx) => {
    const filter = await findOwnFilterRow(tx, accountId, filterId, true);
    await lockAccount(tx, accountId);
    const [row] = await tx.insert(customFilterKeywords).values({
      id: newId(),
      customFilterId: filter.id,
      accountId,
      keyword: input.keyword!,
      wholeWord: input.wholeWord ?? true,
    }).returning();
    // Over a cap, the error rolls the insert back (and the event with it).
    await checkKeywordCaps(tx, filter);
    await filtersChanged(tx, accountId);
    return row;
  });
}

/** One of the account's keywords, or NotFoundError. */
export async function findOwnKeyword(
  db: Executor,
  accountId: string,
  keywordId: string,
): Promise<FilterKeywordRow> {
  const [row] = await db.select().from(customFilterKeywords).where(and(
    eq(customFilterKeywords.id, keywordId),
    eq(customFilterKeywords.accountId, accountId),
  ));
  if (!row) throw new NotFoundError();
  return row;
}

/** Changes one of the account's keywords. */
export async function updateKeyword(
  db: Db,
  accountId: string,
  keywordId: string,
  input: KeywordInput,
): Promise<FilterKeywordRow> {
  validate(input, false);
  return await db.transaction(async (tx) => {
    const [row] = await tx.update(customFilterKeywords).set({
      ...(input.keyword !== undefined ? { keyword: input.keyword } : {}),
      ...(input.wholeWord !== undefined ? { wholeWord: input.wholeWord } : {}),
      updatedAt: new Date(),
    }).where(and(
      eq(customFilterKeywords.id, keywordId),
      eq(customFilterKeywords.accountId, accountId),
    )).returning();
    if (!row) throw new NotFoundError();
    if (input.keyword !== undefined || input.wholeWord !== undefined) {
      await filtersChanged(tx, accountId);
    }
    return row;
  });
}

/** Removes one of the account's keywords (its filter stays, as in Mastodon). */
export async function deleteKeyword(db: Db, accountId: string, keywordId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const gone = await tx.delete(customFilterKeywords).where(and(
      eq(customFilterKeywords.id, keywordId),
      eq(customFilterKeywords.accountId, accountId),
    )).returning({ id: customFilterKeywords.id });
    if (gone.length === 0) throw new NotFoundError();
    await filtersChanged(tx, accountId);
  });
}
