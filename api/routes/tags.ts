/**
 * Hashtags:
 * - GET /api/v1/tags/:name (public or user) → Tag
 * - POST /api/v1/tags/:name/follow, /unfollow (user + write:follows) → Tag
 * - POST /api/v1/tags/:id/feature, /unfeature (user + write:accounts; :id is the name) → Tag
 * - GET /api/v1/followed_tags (user + read:follows) → Tag[], paged by the
 *   tag_follows row ids in the Link header (100 by default, 200 at most)
 *
 * Decisions:
 * - A name outside Mastodon's hashtag pattern, or an unknown name on GET, is
 *   404 "Record not found". Names match case-insensitively.
 * - Follow, unfollow, feature and unfeature are idempotent and create the tag
 *   when needed, as Mastodon's set_or_create_tag.
 * - Featuring past the limit is a 422 (Mastodon silently answers
 *   `featuring: false`; an error tells the user why nothing happened).
 * - Feature and unfeature answers leave out `id`, as the API spec's Tag
 *   table says.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { setLinkHeader } from "../pagination.ts";
import { readFollowedTags } from "../reads/collections.ts";
import { requireUser } from "../middleware/scopes.ts";
import { serializeTag } from "../entities/tag.ts";
import { me, relationshipError } from "./relationships.ts";
import { viewerAccountId } from "./accounts_access.ts";
import {
  findTagByName,
  isValidTagName,
  normalizeTagName,
  type TagRow,
} from "../../db/queries/tags.ts";
import { followTag, unfollowTag } from "../../actors/tags/followed_tags.ts";
import { featureTag, unfeatureTag } from "../../actors/tags/featured_tags.ts";

/** Runs a tag command, answering its errors in Mastodon's shape. */
async function command<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw relationshipError(error);
  }
}

async function tagJson(c: Context<ApiEnv>, tag: TagRow, omitId = false) {
  const { database, config } = c.get("ctx");
  const viewer = viewerAccountId(c);
  return await serializeTag(database, config.origin, tag, viewer ? { accountId: viewer } : null, {
    omitId,
  });
}

/** The tag routes, mounted at the root of the app. */
export function tagRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/tags/:name", async (c) => {
    const name = normalizeTagName(c.req.param("name"));
    if (!isValidTagName(name)) throw new ApiError(404, "Record not found");
    const tag = await findTagByName(c.get("ctx").database.db, name);
    if (!tag) throw new ApiError(404, "Record not found");
    return c.json(await tagJson(c, tag));
  });

  const writeFollows = requireUser("write:follows", "follow");
  app.post("/api/v1/tags/:name/follow", writeFollows, async (c) => {
    const db = c.get("ctx").database.db;
    const tag = await command(() => followTag(db, me(c), c.req.param("name")));
    return c.json(await tagJson(c, tag));
  });
  app.post("/api/v1/tags/:name/unfollow", writeFollows, async (c) => {
    const db = c.get("ctx").database.db;
    const tag = await command(() => unfollowTag(db, me(c), c.req.param("name")));
    return c.json(await tagJson(c, tag));
  });

  const writeAccounts = requireUser("write:accounts");
  app.post("/api/v1/tags/:id/feature", writeAccounts, async (c) => {
    const { database, config } = c.get("ctx");
    const { tag } = await command(() =>
      featureTag(database.db, me(c), c.req.param("id"), config.limits.maxFeaturedTags)
    );
    return c.json(await tagJson(c, tag, true));
  });
  app.post("/api/v1/tags/:id/unfeature", writeAccounts, async (c) => {
    const db = c.get("ctx").database.db;
    const tag = await command(() => unfeatureTag(db, me(c), c.req.param("id")));
    return c.json(await tagJson(c, tag, true));
  });

  app.get("/api/v1/followed_tags", requireUser("read:follows", "follow"), async (c) => {
    const read = await readFollowedTags(c.get("ctx"), me(c), await params(c));
    setLinkHeader(c, read.cursors);
    return c.json(read.items);
  });
  return app;
}
