/**
 * The admin hashtag API (Mastodon's Api::V1::Admin::TagsController), for
 * staff whose role has `manage_taxonomies`:
 * - GET /api/v1/admin/tags (admin:read) → Admin::Tag[], newest first, 100 by
 *   default and 200 at most, Link headers (max_id / min_id)
 * - GET /api/v1/admin/tags/:id (admin:read) → Admin::Tag
 * - PUT /api/v1/admin/tags/:id (admin:write; display_name, trendable,
 *   usable, listable) → Admin::Tag, 422 when display_name is not the name
 * An unknown or malformed id is 404 "Record not found"; an update leaves an
 * audit row (actors/moderation/tags.ts).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../env.ts";
import { ApiError } from "../../errors.ts";
import { params } from "../../params.ts";
import { PAGE_SIZES, readPageParams, setPaginationHeaders } from "../../pagination.ts";
import { readBoolean, readString } from "../../readers.ts";
import { requireStaff } from "../../middleware/staff.ts";
import { withValidation } from "../../validation_errors.ts";
import { serializeAdminTags } from "../../entities/admin_tag.ts";
import { NotFoundError } from "../../../model/errors.ts";
import {
  type AdminTagRow,
  listTags,
  requireTag,
  updateTag,
} from "../../../actors/moderation/tags.ts";

/** Runs a command, answering an unknown tag with Mastodon's 404. */
export async function tagCommand<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await withValidation(run);
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
    throw error;
  }
}

/** Admin::Tag JSON of rows, with the instance's review setting. */
export async function adminTagsJson(c: Context<ApiEnv>, rows: AdminTagRow[]) {
  const { database, config } = c.get("ctx");
  return await serializeAdminTags(database, config.origin, rows, config.trends.review);
}

/** The admin tag routes, mounted at the root of the app. */
export function adminTagRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = requireStaff("manage_taxonomies", "admin:read");
  const write = requireStaff("manage_taxonomies", "admin:write");
  const db = (c: Context<ApiEnv>) => c.get("ctx").database.db;

  app.get("/api/v1/admin/tags", read, async (c) => {
    const page = readPageParams(await params(c), PAGE_SIZES.admin);
    const rows = await listTags(db(c), page);
    setPaginationHeaders(c, rows, (r) => r.id, { hasMore: rows.length >= page.limit });
    return c.json(await adminTagsJson(c, rows));
  });

  app.get("/api/v1/admin/tags/:id", read, async (c) => {
    const row = await tagCommand(() => requireTag(db(c), c.req.param("id")));
    return c.json((await adminTagsJson(c, [row]))[0]);
  });

  app.on(["PUT", "PATCH"], "/api/v1/admin/tags/:id", write, async (c) => {
    // An unknown tag is a 404 whatever the body.
    await tagCommand(() => requireTag(db(c), c.req.param("id")));
    const p = await params(c);
    const changes = {
      displayName: p.display_name === undefined
        ? undefined
        : readString(p, "display_name", { maxLength: 200 }) ?? null,
      trendable: readBoolean(p, "trendable"),
      usable: readBoolean(p, "usable"),
      listable: readBoolean(p, "listable"),
    };
    const staff = c.get("user")!.accountId;
    const row = await tagCommand(() => updateTag(db(c), staff, c.req.param("id"), changes));
    return c.json((await adminTagsJson(c, [row]))[0]);
  });
  return app;
}
