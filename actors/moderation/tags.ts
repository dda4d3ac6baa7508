/**
 * Staff commands on hashtags (Mastodon's Admin::Tag): list, show, and update
 * display_name, usable, listable and trendable. A tag's trendable flag is
 * its trend review (actors/discovery/trend_review.ts): true is "allowed", false
 * "rejected", no review yet is requires_review. Every update writes its audit
 * row in its own transaction.
 */
import { eq, inArray } from "drizzle-orm";
import { newestFirst, type Page, pageWindow } from "../../db/queries/id_paging.ts";
import type { Executor } from "../../db/connection.ts";
import { tags } from "../../db/schema/mod.ts";
import { isId } from "../../db/ids.ts";
import type { TagRow } from "../../db/queries/tags.ts";
import { recordAdminAction } from "./audit_log.ts";
import { NotFoundError, ValidationError } from "../../model/errors.ts";
import {
  setTrendReview,
  type TrendReviewState,
  trendReviewStates,
} from "../discovery/trend_review.ts";

/** A tag with its trend review, what Admin::Tag shows. */
export interface AdminTagRow extends TagRow {
  review: TrendReviewState | null;
}

/** Adds each tag's review, in one statement. */
export async function withReviews(db: Executor, rows: TagRow[]): Promise<AdminTagRow[]> {
  const states = await trendReviewStates(db, "tag", rows.map((r) => r.id));
  return rows.map((r) => ({ ...r, review: states.get(r.id) ?? null }));
}

/** A tag by id, or NotFoundError. */
export async function requireTag(db: Executor, id: string): Promise<AdminTagRow> {
  const [row] = isId(id) ? await db.select().from(tags).where(eq(tags.id, id)).limit(1) : [];
  if (!row) throw new NotFoundError("No such tag");
  return (await withReviews(db, [row]))[0];
}

/** Tags by id, newest first, with max_id/since_id/min_id paging. */
export async function listTags(
  db: Executor,
  page: Page,
): Promise<AdminTagRow[]> {
  const window = pageWindow(tags.id, page);
  const rows = await db.select().from(tags).where(window.where).orderBy(window.order)
    .limit(page.limit);
  return await withReviews(db, newestFirst(rows, window.reverse));
}

/** Tags by ids, in the given order (trends). */
export async function tagsByIds(db: Executor, ids: readonly string[]): Promise<AdminTagRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.select().from(tags).where(inArray(tags.id, [...ids]));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return await withReviews(db, ids.flatMap((id) => byId.get(id) ?? []));
}

/** What PUT /api/v1/admin/tags/:id may change. */
export interface TagChanges {
  displayName?: string | null;
  trendable?: boolean;
  usable?: boolean;
  listable?: boolean;
}

/**
 * Updates a tag. A display name must be the name in other letter case
 * (Mastodon's validation); blank clears it.
 *
 * @throws NotFoundError, ValidationError (nothing written then)
 */
export async function updateTag(
  db: Executor,
  actor: string | null,
  id: string,
  changes: TagChanges,
  action = "update",
): Promise<AdminTagRow> {
  if (!isId(id)) throw new NotFoundError("No such tag");
  await db.transaction(async (tx) => {
    const [row] = await tx.select().from(tags).where(eq(tags.id, id)).for("update");
    if (!row) throw new NotFoundError("No such tag");
    const set: Partial<typeof tags.$inferInsert> = {};
    if (changes.displayName !== undefined) {
      const name = changes.displayName?.trim() || null;
      if (name !== null && name.toLowerCase() !== row.name.toLowerCase()) {
        throw new ValidationError({
          display_name: [{ error: "ERR_INVALID", description: "does not match the hashtag" }],
        });
      }
      set.displayName = name;
    }
    if (changes.usable !== undefined) set.usable = changes.usable;
    if (changes.listable !== undefined) set.listable = changes.listable;
    if (Object.keys(set).length) await tx.update(tags).set(set).where(eq(tags.id, id));
    if (changes.trendable !== undefined) {
      await setTrendReview(tx, "tag", id, changes.trendable ? "allowed" : "rejected");
    }
    await recordAdminAction(tx, {
      accountId: actor,
      action,
      targetType: "Tag",
      targetId: id,
      humanIdentifier: row.name,
    });
  });
  return await requireTag(db, id);
}
