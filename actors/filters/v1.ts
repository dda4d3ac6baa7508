/**
 * Filters v1 (deprecated since Mastodon 4.0), mapped onto v2 as Mastodon
 * does: a v1 filter is one keyword, its id the keyword's id, `phrase` the
 * keyword, and `context`, `expires_at` and `irreversible` (action hide)
 * those of the keyword's filter. Creating one creates a filter titled with
 * the phrase holding that one keyword; deleting one deletes the keyword
 * only. Changing the filter's side of a keyword whose filter holds other
 * keywords too is refused, with Mastodon's message.
 */
import { and, asc, count, eq } from "drizzle-orm";
import type { Db, Executor } from "../../db/connection.ts";
import { customFilterKeywords, customFilters } from "../../db/schema/mod.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import {
  checkContexts,
  checkKeyword,
  checkTitle,
  expiryFrom,
  limitReached,
  normalizeContexts,
} from "./rules.ts";
import { createFilter, type FilterKeywordRow, type FilterRow, filtersChanged } from "./filters.ts";
import { deleteKeyword } from "./keywords.ts";

/** A v1 filter: a keyword and its filter. */
export interface V1Filter {
  keyword: FilterKeywordRow;
  filter: FilterRow;
}

/** What a v1 create or update sets; undefined leaves a field as it is. */
export interface V1FilterInput {
  phrase?: string;
  context?: string[];
  irreversible?: boolean;
  wholeWord?: boolean;
  /** Seconds from now; null clears the expiry. */
  expiresIn?: number | null;
}

/** Mastodon's filters.errors.deprecated_api_multiple_keywords. */
export const MULTIPLE_KEYWORDS =
  "These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.";

function validate(input: V1FilterInput, creating: boolean): string[] | undefined {
  const problems = new Problems();
  if (creating || input.phrase !== undefined) checkKeyword(problems, input.phrase ?? "", "phrase");
  const contexts = input.context === undefined ? undefined : normalizeContexts(input.context);
  if (creating || contexts !== undefined) checkContexts(problems, contexts ?? []);
  if (problems.empty && input.phrase !== undefined) checkTitle(problems, input.phrase);
  problems.throwIfAny();
  return contexts;
}

/** The account's v1 filters: every keyword, by filter then keyword. */
export async function v1FiltersOf(db: Executor, accountId: string): Promise<V1Filter[]> {
  return await db.select({ keyword: customFilterKeywords, filter: customFilters })
    .from(customFilterKeywords)
    .innerJoin(customFilters, eq(customFilters.id, customFilterKeywords.customFilterId))
    .where(eq(customFilterKeywords.accountId, accountId))
    .orderBy(asc(customFilters.id), asc(customFilterKeywords.id));
}

/** One of the account's v1 filters, or NotFoundError. */
export async function findOwnV1Filter(
  db: Executor,
  accountId: string,
  keywordId: string,
  lock = false,
): Promise<V1Filter> {
  const query = db.select({ keyword: customFilterKeywords, filter: customFilters })
    .from(customFilterKeywords)
    .innerJoin(customFilters, eq(customFilters.id, customFilterKeywords.customFilterId))
    .where(and(
      eq(customFilterKeywords.id, keywordId),
      eq(customFilterKeywords.accountId, accountId),
    ));
  const [found] = lock ? await query.for("update") : await query;
  if (!found) throw new NotFoundError();
  return found;
}

/** Creates a v1 filter: a filter titled with the phrase, holding it as its one keyword. */
export async function createV1Filter(
  db: Db,
  accountId: string,
  input: V1FilterInput,
): Promise<V1Filter> {
  const contexts = validate(input, true)!;
  const { filter, keywords } = await createFilter(db, accountId, {
    title: input.phrase,
    context: contexts,
    action: input.irreversible ? "hide" : "warn",
    expiresIn: input.expiresIn ?? null,
    keywords: [{ keyword: input.phrase, wholeWord: input.wholeWord ?? true }],
  });
  return { filter, keyword: keywords[0] };
}

/** Changes a v1 filter: the keyword, and its filter's title, context, action and expiry. */
export async function updateV1Filter(
  db: Db,
  accountId: string,
  keywordId: string,
  input: V1FilterInput,
): Promise<V1Filter> {
  const contexts = validate(input, false);
  return await db.transaction(async (tx) => {
    const found = await findOwnV1Filter(tx, accountId, keywordId, true);
    const now = new Date();
    let keyword = found.keyword;
    if (input.phrase !== undefined || input.wholeWord !== undefined) {
      [keyword] = await tx.update(customFilterKeywords).set({
        ...(input.phrase !== undefined ? { keyword: input.phrase } : {}),
        ...(input.wholeWord !== undefined ? { wholeWord: input.wholeWord } : {}),
        updatedAt: now,
      }).where(eq(customFilterKeywords.id, keyword.id)).returning();
    }
    const old = found.filter;
    const changes: Partial<typeof customFilters.$inferInsert> = {};
    if (input.phrase !== undefined && input.phrase.trim() !== old.title) {
      changes.title = input.phrase.trim();
    }
    if (contexts !== undefined && contexts.join() !== old.context.join()) {
      changes.context = contexts;
    }
    if (input.irreversible !== undefined && input.irreversible !== (old.action === "hide")) {
      changes.action = input.irreversible ? "hide" : "warn";
    }
    if (input.expiresIn !== undefined) changes.expiresAt = expiryFrom(input.expiresIn);
    let filter = old;
    if (Object.keys(changes).length > 0) {
      const [{ n }] = await tx.select({ n: count() }).from(customFilterKeywords)
        .where(eq(customFilterKeywords.customFilterId, old.id));
      if (n > 1) limitReached(MULTIPLE_KEYWORDS);
      [filter] = await tx.update(customFilters).set({ ...changes, updatedAt: now })
        .where(eq(customFilters.id, old.id)).returning();
    }
    if (keyword !== found.keyword || filter !== old) await filtersChanged(tx, accountId);
    return { keyword, filter };
  });
}

/** Deletes a v1 filter: the keyword only (its filter stays, as in Mastodon). */
export async function deleteV1Filter(db: Db, accountId: string, keywordId: string): Promise<void> {
  await deleteKeyword(db, accountId, keywordId);
}
