/**
 * The admin trends API (Mastodon's Api::V1::Admin::Trends::*), for staff
 * whose role has `manage_taxonomies`: everything that trends now, reviewed
 * or not, best first, with `requires_review`; and the moderators' decisions.
 * - GET /api/v1/admin/trends/tags (admin:read) → Admin::Tag[]
 * - GET /api/v1/admin/trends/statuses (admin:read) → Status[] + requires_review
 * - GET /api/v1/admin/trends/links (admin:read) → Trends::Link[] + id, requires_review
 * - POST …/{tags,statuses,links}/:id/{approve,reject} (admin:write) → the item
 * Decisions go through the one review module (actors/discovery/trend_review.ts) with
 * an audit row; the public trends honour them (db/queries/trends.ts).
 * - GET /api/v1/admin/trends/links/publishers (admin:read) → the sites of
 *   trending links (Mastodon's PreviewCardProvider), newest first, Link paging
 * - POST …/links/publishers/:id/{approve,reject} (admin:write): a link with no
 *   decision of its own follows its publisher's
 */
import { type Context, Hono } from "hono";
import { inArray } from "drizzle-orm";
import type { ApiEnv } from "../../env.ts";
import { ApiError } from "../../errors.ts";
import { params } from "../../params.ts";
import {
  clampLimit,
  PAGE_SIZES,
  type PageSize,
  readPageParams,
  setPaginationHeaders,
} from "../../pagination.ts";
import { readOffset, setOffsetLinks } from "../../offset_pagination.ts";
import { requireStaff } from "../../middleware/staff.ts";
import { serializeStatuses } from "../../entities/status.ts";
import { serializeTrendLinks } from "../../entities/trend_link.ts";
import { adminTagsJson, tagCommand } from "./tags.ts";
import { previewCards, statuses } from "../../../db/schema/mod.ts";
import { allTrendIds, type TrendKind, type TrendPage } from "../../../db/queries/trends.ts";
import { requireTag, tagsByIds } from "../../../actors/moderation/tags.ts";
import {
  listPublishers,
  type PublisherRow,
  reviewTrendItem,
  type TrendReviewState,
  trendReviewStates,
} from "../../../actors/discovery/trend_review.ts";

async function readTrendPage(c: Context<ApiEnv>, size: PageSize): Promise<TrendPage> {
  const p = await params(c);
  return { offset: readOffset(p), limit: clampLimit(p.limit, size) };
}

async function statusesJson(c: Context<ApiEnv>, ids: string[]) {
  const ctx = c.get("ctx");
  if (ids.length === 0) return [];
  const rows = await ctx.database.db.select().from(statuses).where(inArray(statuses.id, ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const ordered = ids.flatMap((id) => byId.get(id) ?? []);
  const json = await serializeStatuses(ctx, ordered, { accountId: c.get("user")!.accountId });
  const states = await trendReviewStates(ctx.database.db, "status", ids);
  return json.map((s) => ({ ...s, requires_review: !states.has(s.id) }));
}

async function linksJson(c: Context<ApiEnv>, ids: string[]) {
  const { database } = c.get("ctx");
  if (ids.length === 0) return [];
  // Only cards that still exist, so the serialized list lines up with `ids`.
  const found = new Set(
    (await database.db.select({ id: previewCards.id }).from(previewCards)
      .where(inArray(previewCards.id, ids))).map((r) => r.id),
  );
  ids = ids.filter((id) => found.has(id));
  const json = await serializeTrendLinks(database, c.get("ctx").mediaUrls, ids);
  const states = await trendReviewStates(database.db, "link", ids);
  return json.map((l, i) => ({ id: ids[i], ...l, requires_review: !states.has(ids[i]) }));
}

/** The admin trends routes, mounted at the root of the app. */
export function adminTrendRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = requireStaff("manage_taxonomies", "admin:read");
  const write = requireStaff("manage_taxonomies", "admin:write");

  const list = async (c: Context<ApiEnv>, kind: TrendKind, size: PageSize) => {
    const page = await readTrendPage(c, size);
    const ids = await allTrendIds(c.get("ctx").database, kind, page);
    setOffsetLinks(c, page.offset, page.limit, ids.length);
    return ids;
  };
  app.get("/api/v1/admin/trends/tags", read, async (c) => {
    const ids = await list(c, "tag", PAGE_SIZES.trends);
    return c.json(await adminTagsJson(c, await tagsByIds(c.get("ctx").database.db, ids)));
  });
  app.get("/api/v1/admin/trends/statuses", read, async (c) => {
    return c.json(await statusesJson(c, await list(c, "status", PAGE_SIZES.trendStatuses)));
  });
  app.get("/api/v1/admin/trends/links", read, async (c) => {
    return c.json(await linksJson(c, await list(c, "link", PAGE_SIZES.trends)));
  });

  // A publisher trends when approved, or undecided while trends need no review.
  const publisherJson = (p: PublisherRow, review: boolean) => ({
    id: p.id,
    domain: p.domain,
    trendable: p.state === "allowed" || (p.state === null && !review),
    reviewed_at: p.reviewedAt?.toISOString() ?? null,
    requested_review_at: null,
    requires_review: p.state === null,
  });
  app.get("/api/v1/admin/trends/links/publishers", read, async (c) => {
    const page = readPageParams(await params(c), PAGE_SIZES.admin);
    const rows = await listPublishers(c.get("ctx").database.db, page);
    setPaginationHeaders(c, rows, (r) => r.id, { hasMore: rows.length >= page.limit });
    const review = c.get("ctx").config.trends.review;
    return c.json(rows.map((r) => publisherJson(r, review)));
  });
  for (const [verb, state] of Object.entries({ approve: "allowed", reject: "rejected" } as const)) {
    app.post(`/api/v1/admin/trends/links/publishers/:id/${verb}`, write, async (c) => {
      const id = c.req.param("id");
      const db = c.get("ctx").database.db;
      await tagCommand(() => reviewTrendItem(db, c.get("user")!.accountId, "publisher", id, state));
      const [row] = await listPublishers(
        db,
        { maxId: null, sinceId: null, minId: null, limit: 1 },
        [id],
      );
      return c.json(publisherJson(row, c.get("ctx").config.trends.review));
    });
  }

  const kinds: Record<string, TrendKind> = { tags: "tag", statuses: "status", links: "link" };
  const decisions: Record<string, TrendReviewState> = { approve: "allowed", reject: "rejected" };
  for (const [path, kind] of Object.entries(kinds)) {
    for (const [verb, state] of Object.entries(decisions)) {
      app.post(`/api/v1/admin/trends/${path}/:id/${verb}`, write, async (c) => {
        const id = c.req.param("id");
        const db = c.get("ctx").database.db;
        const staff = c.get("user")!.accountId;
        await tagCommand(() => reviewTrendItem(db, staff, kind, id, state));
        if (kind === "tag") {
          return c.json((await adminTagsJson(c, [await requireTag(db, id)]))[0]);
        }
        const [json] = kind === "status" ? await statusesJson(c, [id]) : await linksJson(c, [id]);
        if (!json) throw new ApiError(404, "Record not found");
        return c.json(json);
      });
    }
  }
  return app;
}
