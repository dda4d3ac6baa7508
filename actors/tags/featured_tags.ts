/**
 * Hashtags featured on a profile: feature (POST /api/v1/featured_tags and
 * POST /api/v1/tags/:id/feature), unfeature, and the counters shown with
 * them.
 *
 * The counters (`statuses_count`, `last_status_at`) are kept on the row and
 * recomputed from the statuses, never incremented blindly: featuring a tag
 * counts the posts already made with it (Mastodon's FeaturedTag#reset_data),
 * and {@link refreshFeaturedTagStats} is the helper the statuses commands
 * call in their transaction after a post with tags is created, edited or
 * deleted. Only the account's public and unlisted posts count, as Mastodon.
 */
import { and, count, eq, inArray, notInArray, sql } from "drizzle-orm";
import { isPublicVisibility } from "../../model/visibility.ts";
import { PUBLIC_VISIBILITY_SQL } from "../../db/queries/visibility.ts";
import type { Executor } from "../../db/connection.ts";
import { featuredTags } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import {
  findOrCreateTags,
  isValidTagName,
  normalizeTagName,
  type TagRow,
} from "../../db/queries/tags.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { tagForWriting } from "./followed_tags.ts";

/** Mastodon's message when the profile already features the maximum. */
export const FEATURED_TAGS_LIMIT_MESSAGE =
  "You have already featured the maximum number of hashtags";

/** A featured tag with its tag. */
export interface FeaturedTagResult {
  tag: TagRow;
  featuredTag: typeof featuredTags.$inferSelect;
}

/**
 * Features a hashtag on `accountId`'s profile; featuring it again returns
 * the existing row. Past `limit` featured tags it is a validation error.
 * An invalid name is a validation error too ("Name is invalid").
 */
export async function featureTag(
  db: Executor,
  accountId: string,
  name: string,
  limit: number,
): Promise<FeaturedTagResult> {
  return await db.transaction(async (tx) => {
    let tag: TagRow;
    try {
      tag = await tagForWriting(tx, name);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      const problems = new Problems();
      problems.add("name", "ERR_INVALID", "is invalid");
      problems.throwIfAny();
      throw error;
    }
    // Serialize concurrent features of one account so the limit holds.
    await tx.execute(sql`SELECT id FROM accounts WHERE id = ${accountId}::bigint FOR UPDATE`);
    const [existing] = await tx.select().from(featuredTags)
      .where(and(eq(featuredTags.accountId, accountId), eq(featuredTags.tagId, tag.id)));
    if (existing) return { tag, featuredTag: existing };
    const [{ n }] = await tx.select({ n: count() }).from(featuredTags)
      .where(eq(featuredTags.accountId, accountId));
    if (n >= limit) {
      const problems = new Problems();
      problems.add("base", "ERR_LIMIT", FEATURED_TAGS_LIMIT_MESSAGE);
      problems.throwIfAny();
    }
    const id = newId();
    await tx.insert(featuredTags).values({ id, accountId, tagId: tag.id });
    await refreshFeaturedTagStats(tx, accountId, [tag.id]);
    const [featuredTag] = await tx.select().from(featuredTags).where(eq(featuredTags.id, id));
    return { tag, featuredTag };
  });
}

/** Unfeatures a hashtag by name (idempotent); returns the tag. */
export async function unfeatureTag(db: Executor, accountId: string, name: string): Promise<TagRow> {
  return await db.transaction(async (tx) => {
    const tag = await tagForWriting(tx, name);
    await tx.delete(featuredTags)
      .where(and(eq(featuredTags.accountId, accountId), eq(featuredTags.tagId, tag.id)));
    return tag;
  });
}

/** Deletes one of the account's featured tags by its id; someone else's is not found. */
export async function deleteFeaturedTag(
  db: Executor,
  accountId: string,
  featuredTagId: string,
): Promise<void> {
  const deleted = await db.delete(featuredTags)
    .where(and(eq(featuredTags.id, featuredTagId), eq(featuredTags.accountId, accountId)))
    .returning({ id: featuredTags.id });
  if (deleted.length === 0) throw new NotFoundError();
}

/**
 * Makes a remote account's featured tags the hashtags its `featuredTags`
 * collection lists (federation/remote/featured_tags_sync.ts): tags no longer
 * listed are removed, new ones added, invalid names skipped, at most
 * `limit` kept. One transaction, so readers see the old set or the new one.
 * The counters are computed from the account's posts we have, as for a
 * local account (Mastodon does the same for remote featured tags).
 */
export async function replaceRemoteFeaturedTags(
  db: Executor,
  accountId: string,
  names: readonly string[],
  limit: number,
): Promise<{ added: number; removed: number }> {
  const valid = names.map(normalizeTagName).filter(isValidTagName).slice(0, limit);
  return await db.transaction(async (tx) => {
    // Serialize with another sync of the same account.
    await tx.execute(sql`SELECT id FROM accounts WHERE id = ${accountId}::bigint FOR UPDATE`);
    const tagIds = [...(await findOrCreateTags(tx, valid)).values()].map((t) => t.id);
    const removed = await tx.delete(featuredTags).where(and(
      eq(featuredTags.accountId, accountId),
      tagIds.length ? notInArray(featuredTags.tagId, tagIds) : undefined,
    )).returning({ id: featuredTags.id });
    if (tagIds.length === 0) return { added: 0, removed: removed.length };
    const added = await tx.insert(featuredTags)
      .values(tagIds.map((tagId) => ({ id: newId(), accountId, tagId })))
      .onConflictDoNothing().returning({ id: featuredTags.id });
    await refreshFeaturedTagStats(tx, accountId, tagIds);
    return { added: added.length, removed: removed.length };
  });
}

/**
 * Recomputes `statuses_count` and `last_status_at` of the account's featured
 * tags among `tagIds` (all of them when omitted) from its public and
 * unlisted, undeleted, original posts. Statuses commands call this inside
 * their transaction after writing or removing a post with tags; it costs one
 * UPDATE that touches nothing when none of the tags is featured.
 */
export async function refreshFeaturedTagStats(
  tx: Executor,
  accountId: string,
  tagIds?: readonly string[],
): Promise<void> {
  if (tagIds && tagIds.length === 0) return;
  const counted = sql`FROM statuses s JOIN statuses_tags st ON st.status_id = s.id
    WHERE st.tag_id = featured_tags.tag_id AND s.account_id = featured_tags.account_id
      AND s.visibility IN ${PUBLIC_VISIBILITY_SQL} AND s.deleted_at IS NULL
      AND s.reblog_of_id IS NULL AND NOT s.pending_approval`;
  await tx.update(featuredTags).set({
    statusesCount: sql`(SELECT count(*) ${counted})`,
    lastStatusAt: sql`(SELECT max(s.created_at) ${counted})`,
  }).where(and(
    eq(featuredTags.accountId, accountId),
    tagIds ? inArray(featuredTags.tagId, [...tagIds]) : undefined,
  ));
}

/**
 * Counts a new (delta 1) or deleted (delta -1) public or unlisted post of a
 * local account in the featured tags it carries. Incremental, so posting
 * costs an update of at most a few featured_tags rows of the author.
 */
export async function countInFeaturedTags(
  tx: Executor,
  status: { id: string; accountId: string; visibility: string; reblogOfId: string | null },
  delta: 1 | -1,
): Promise<void> {
  if (status.reblogOfId || !isPublicVisibility(status.visibility)) {
    return;
  }
  await tx.execute(sql`
    UPDATE featured_tags SET
      statuses_count = GREATEST(statuses_count + ${delta}, 0),
      last_status_at = CASE WHEN ${delta} > 0 THEN now() ELSE last_status_at END
    WHERE account_id = ${status.accountId}::bigint
      AND tag_id IN (SELECT tag_id FROM statuses_tags WHERE status_id = ${status.id}::bigint)`);
}

/** How many recent posts the suggestions look at (Mastodon's RECENT_STATUS_LIMIT). */
const SUGGESTION_STATUS_WINDOW = 1_000;
/** How many suggestions are returned. */
const SUGGESTION_LIMIT = 10;

/**
 * The hashtags the account used most in its recent posts and does not
 * feature yet, most used first (GET /api/v1/featured_tags/suggestions).
 */
export async function featuredTagSuggestions(
  db: Executor,
  accountId: string,
): Promise<{ id: string; name: string }[]> {
  const result = await db.execute(sql`
    SELECT t.id::text AS id, t.name
    FROM (SELECT id FROM statuses WHERE account_id = ${accountId}::bigint AND deleted_at IS NULL
            AND reblog_of_id IS NULL ORDER BY id DESC LIMIT ${SUGGESTION_STATUS_WINDOW}) recent
    JOIN statuses_tags st ON st.status_id = recent.id
    JOIN tags t ON t.id = st.tag_id
    WHERE NOT EXISTS (SELECT 1 FROM featured_tags ft
      WHERE ft.account_id = ${accountId}::bigint AND ft.tag_id = t.id)
    GROUP BY t.id, t.name
    ORDER BY count(*) DESC, max(st.status_id) DESC
    LIMIT ${SUGGESTION_LIMIT}`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
    id: string;
    name: string;
  }[];
  return rows.map((r) => ({ id: String(r.id), name: String(r.name) }));
}
