/**
 * Moderators' review of trending items (TRENDS_REVIEW): allow or reject a
 * tag, a status or a link, and list what trends without a decision yet.
 * The admin command line and the admin API (api/routes/admin/trends.ts,
 * actors/moderation/tags.ts) record decisions here.
 *
 * With review off, everything that trends is listed unless rejected; with
 * review on, only what was allowed (db/queries/trends.ts, reviewCondition).
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { newestFirst, pageWindow } from "../../db/queries/id_paging.ts";
import type { Executor } from "../../db/connection.ts";
import {
  previewCards,
  statuses,
  tags,
  trendPublishers,
  trendReviews,
  trendScores,
} from "../../db/schema/mod.ts";
import { isId } from "../../db/ids.ts";
import { findTagByName } from "../../db/queries/tags.ts";
import { TREND_KINDS, type TrendKind } from "../../db/queries/trends.ts";
import { NotFoundError, ValidationError } from "../../model/errors.ts";
import { recordAdminAction } from "../moderation/audit_log.ts";

/** A moderator's decision. */
export type TrendReviewState = "allowed" | "rejected";

/** What a decision is about: a trending item, or a link publisher (trend_publishers). */
export type ReviewKind = TrendKind | "publisher";

/** What a review named, found. */
export interface ReviewedItem {
  kind: TrendKind;
  targetId: string;
  /** The tag's name, the status's URI or the link's URL. */
  label: string;
}

/** Reads a kind as typed on the command line. */
export function parseTrendKind(raw: string): TrendKind {
  const word = raw.trim().toLowerCase();
  const kind = { tags: "tag", statuses: "status", links: "link" }[word] ?? word;
  if ((TREND_KINDS as readonly string[]).includes(kind)) return kind as TrendKind;
  throw new ValidationError({
    kind: [{ error: "ERR_INCLUSION", description: "must be tag, status or link" }],
  });
}

/** Finds the item a moderator names: a tag by name, a status by id, a link by its URL. */
async function findItem(db: Executor, kind: TrendKind, target: string): Promise<ReviewedItem> {
  if (kind === "tag") {
    const tag = await findTagByName(db, target);
    if (!tag) throw new NotFoundError(`No tag #${target.replace(/^#/, "")}`);
    return { kind, targetId: tag.id, label: `#${tag.name}` };
  }
  if (kind === "status") {
    const [row] = isId(target)
      ? await db.select({ id: statuses.id, uri: statuses.uri }).from(statuses)
        .where(and(eq(statuses.id, target), isNull(statuses.deletedAt))).limit(1)
      : [];
    if (!row) throw new NotFoundError(`No status ${target}`);
    return { kind, targetId: row.id, label: row.uri };
  }
  const [card] = await db.select({ id: previewCards.id, url: previewCards.url })
    .from(previewCards).where(eq(previewCards.url, target)).limit(1);
  if (!card) throw new NotFoundError(`No link preview for ${target}`);
  return { kind, targetId: card.id, label: card.url };
}

/** Records a moderator's decision on an item (replacing an earlier one). */
export async function reviewTrend(
  db: Executor,
  kind: TrendKind,
  target: string,
  state: TrendReviewState,
): Promise<ReviewedItem> {
  const item = await findItem(db, kind, target);
  await setTrendReview(db, kind, item.targetId, state);
  return item;
}

/** Records a decision on an item known by id (the admin API, inside its transaction). */
export async function setTrendReview(
  db: Executor,
  kind: ReviewKind,
  targetId: string,
  state: TrendReviewState,
): Promise<void> {
  await db.insert(trendReviews).values({ kind, targetId, state })
    .onConflictDoUpdate({
      target: [trendReviews.kind, trendReviews.targetId],
      set: { state, reviewedAt: sql`now()` },
    });
}

/** The decisions on items of one kind, by target id (absent: no decision yet). */
export async function trendReviewStates(
  db: Executor,
  kind: ReviewKind,
  targetIds: readonly string[],
): Promise<Map<string, TrendReviewState>> {
  if (targetIds.length === 0) return new Map();
  const rows = await db.select({ targetId: trendReviews.targetId, state: trendReviews.state })
    .from(trendReviews)
    .where(and(eq(trendReviews.kind, kind), inArray(trendReviews.targetId, [...targetIds])));
  return new Map(rows.map((r) => [r.targetId, r.state as TrendReviewState]));
}

/** A trending item no moderator has decided on. */
export interface PendingTrend extends ReviewedItem {
  score: number;
  /** Distinct accounts (tags, links) or interactions (statuses). */
  accounts: number;
}

/** What trends now without a review, best first within each kind. */
export async function pendingTrends(db: Executor): Promise<PendingTrend[]> {
  const rows = await db.select({
    kind: trendScores.kind,
    targetId: trendScores.targetId,
    score: trendScores.score,
    accounts: trendScores.accounts,
    tag: tags.name,
    statusUri: statuses.uri,
    url: previewCards.url,
  }).from(trendScores)
    .leftJoin(
      trendReviews,
      and(
        eq(trendReviews.kind, trendScores.kind),
        eq(trendReviews.targetId, trendScores.targetId),
      ),
    )
    .leftJoin(tags, and(eq(trendScores.kind, "tag"), eq(tags.id, trendScores.targetId)))
    .leftJoin(statuses, and(eq(trendScores.kind, "status"), eq(statuses.id, trendScores.targetId)))
    .leftJoin(
      previewCards,
      and(eq(trendScores.kind, "link"), eq(previewCards.id, trendScores.targetId)),
    )
    .where(isNull(trendReviews.state))
    .orderBy(trendScores.kind, sql`${trendScores.score} DESC`);
  return rows.flatMap((r) => {
    const label = r.tag != null ? `#${r.tag}` : r.statusUri ?? r.url;
    if (label == null) return []; // the target went away since the last refresh
    return [{
      kind: r.kind as TrendKind,
      targetId: r.targetId,
      label,
      score: r.score,
      accounts: r.accounts,
    }];
  });
}

/**
 * A staff member's approve or reject from the admin API: the item must
 * exist (a live status, a known card, a tag), and the decision and its audit
 * row are written together.
 *
 * @throws NotFoundError for an unknown or malformed id
 */
export async function reviewTrendItem(
  db: Executor,
  actor: string | null,
  kind: ReviewKind,
  targetId: string,
  state: TrendReviewState,
): Promise<void> {
  if (!isId(targetId)) throw new NotFoundError("Record not found");
  await db.transaction(async (tx) => {
    const label = await labelOf(tx, kind, targetId);
    if (label === null) throw new NotFoundError("Record not found");
    await setTrendReview(tx, kind, targetId, state);
    await recordAdminAction(tx, {
      accountId: actor,
      action: state === "allowed" ? "approve" : "reject",
      targetType: {
        tag: "Tag",
        status: "Status",
        link: "PreviewCard",
        publisher: "PreviewCardProvider",
      }[kind],
      targetId,
      humanIdentifier: label,
    });
  });
}

async function labelOf(db: Executor, kind: ReviewKind, id: string): Promise<string | null> {
  if (kind === "publisher") {
    const [row] = await db.select({ domain: trendPublishers.domain }).from(trendPublishers)
      .where(eq(trendPublishers.id, id));
    return row?.domain ?? null;
  }
  if (kind === "tag") {
    const [row] = await db.select({ name: tags.name }).from(tags).where(eq(tags.id, id));
    return row ? `#${row.name}` : null;
  }
  if (kind === "status") {
    const [row] = await db.select({ uri: statuses.uri }).from(statuses)
      .where(and(eq(statuses.id, id), isNull(statuses.deletedAt)));
    return row?.uri ?? null;
  }
  const [row] = await db.select({ url: previewCards.url }).from(previewCards)
    .where(eq(previewCards.id, id));
  return row?.url ?? null;
}

/** A link publisher with its decision (Admin::Trends::Links::PreviewCardProvider). */
export interface PublisherRow {
  id: string;
  domain: string;
  state: TrendReviewState | null;
  reviewedAt: Date | null;
  createdAt: Date;
}

/** Publishers by id, newest first, with max_id/since_id/min_id paging. */
export async function listPublishers(
  db: Executor,
  page: { maxId: string | null; sinceId: string | null; minId: string | null; limit: number },
  ids?: readonly string[],
): Promise<PublisherRow[]> {
  const window = pageWindow(trendPublishers.id, page);
  const rows = await db.select({
    id: trendPublishers.id,
    domain: trendPublishers.domain,
    createdAt: trendPublishers.createdAt,
    state: trendReviews.state,
    reviewedAt: trendReviews.reviewedAt,
  }).from(trendPublishers)
    .leftJoin(
      trendReviews,
      and(eq(trendReviews.kind, "publisher"), eq(trendReviews.targetId, trendPublishers.id)),
    )
    .where(and(
      ids ? inArray(trendPublishers.id, [...ids]) : undefined,
      window.where,
    ))
    .orderBy(window.order)
    .limit(page.limit);
  return newestFirst(rows, window.reverse)
    .map((r) => ({ ...r, state: r.state as TrendReviewState | null }));
}
