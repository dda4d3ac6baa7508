/**
 * The replies other servers may crawl (our `replies` collections, issue 21):
 * replies that anyone may see (public and unlisted), not deleted, by authors
 * that are not suspended, oldest first. Mastodon's RepliesController lists
 * the same set (it starts with the author's own replies; we keep one order).
 */
import { and, asc, count, eq, gt, inArray, isNull, lte, sql } from "drizzle-orm";
import { PUBLIC_VISIBILITIES } from "../../model/visibility.ts";
import type { Executor } from "../connection.ts";
import { accounts, statuses } from "../schema/mod.ts";
import { anyId } from "./any_id.ts";

/** One listed reply: its id (the page cursor) and its IRI (the item). */
export interface ListedReply {
  id: string;
  uri: string;
}

function listable(parentIds: readonly string[]) {
  return and(
    anyId(statuses.inReplyToId, parentIds),
    inArray(statuses.visibility, [...PUBLIC_VISIBILITIES]),
    isNull(statuses.deletedAt),
    // Held for approval: listed once approved (issue 34).
    eq(statuses.pendingApproval, false),
    isNull(accounts.suspendedAt),
    isNull(accounts.deletedAt),
  );
}

/**
 * The first `limit` listed replies of each of `parentIds` (one query for a
 * page of Notes), keyed by parent id.
 */
export async function firstReplies(
  db: Executor,
  parentIds: readonly string[],
  limit: number,
): Promise<Map<string, ListedReply[]>> {
  const result = new Map<string, ListedReply[]>();
  if (parentIds.length === 0) return result;
  const ranked = db.select({
    id: statuses.id,
    uri: statuses.uri,
    parentId: statuses.inReplyToId,
    n: sql<number>`row_number() OVER (PARTITION BY ${statuses.inReplyToId} ORDER BY ${statuses.id})`
      .as("n"),
  }).from(statuses).innerJoin(accounts, eq(accounts.id, statuses.accountId))
    .where(listable(parentIds)).as("ranked");
  const rows = await db.select({ id: ranked.id, uri: ranked.uri, parentId: ranked.parentId })
    .from(ranked).where(lte(ranked.n, limit)).orderBy(asc(ranked.id));
  for (const row of rows) {
    if (!row.parentId) continue;
    const list = result.get(row.parentId) ?? [];
    list.push({ id: row.id, uri: row.uri });
    result.set(row.parentId, list);
  }
  return result;
}

/** Listed replies of `parentId` after the reply `afterId` (all when null), at most `limit`. */
export async function repliesAfter(
  db: Executor,
  parentId: string,
  afterId: string | null,
  limit: number,
): Promise<ListedReply[]> {
  return await db.select({ id: statuses.id, uri: statuses.uri }).from(statuses)
    .innerJoin(accounts, eq(accounts.id, statuses.accountId))
    .where(and(listable([parentId]), afterId ? gt(statuses.id, afterId) : undefined))
    .orderBy(asc(statuses.id)).limit(limit);
}

/** How many replies of `parentId` are listed. */
export async function countReplies(db: Executor, parentId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(statuses)
    .innerJoin(accounts, eq(accounts.id, statuses.accountId)).where(listable([parentId]));
  return Number(row?.n ?? 0);
}
