/**
 * The signed-in user's featured hashtags:
 * - GET /api/v1/featured_tags (read:accounts) → FeaturedTag[], oldest first
 * - POST /api/v1/featured_tags (write:accounts; name) → FeaturedTag; featuring a
 *   tag twice returns the same record; past config.limits.maxFeaturedTags → 422
 * - DELETE /api/v1/featured_tags/:id (write:accounts) → {}; 404 for others' ids
 * - GET /api/v1/featured_tags/suggestions (read:accounts) → Tag[]: the tags
 *   most used in the account's recent posts, not featured yet
 */
import { Hono } from "hono";
import { eq } from "drizzle-orm";
import type { ApiEnv } from "../env.ts";
import { ApiError, validationFailed } from "../errors.ts";
import { params } from "../params.ts";
import { readString } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { featuredTagEntity } from "../entities/featured_tag.ts";
import { serializeTags } from "../entities/tag.ts";
import { me, relationshipError } from "./relationships.ts";
import { isId } from "../../db/ids.ts";
import { featuredTagsOf } from "../../db/queries/accounts.ts";
import { accounts } from "../../db/schema/mod.ts";
import type { Database } from "../../db/connection.ts";
import {
  deleteFeaturedTag,
  featuredTagSuggestions,
  featureTag,
  refreshFeaturedTagStats,
} from "../../actors/tags/featured_tags.ts";

/** Longest `name` looked at; a hashtag is at most 50 characters anyway. */
const MAX_NAME_INPUT = 1_024;

/** The names a featured tag URL is built from. */
async function handleOf(database: Database, accountId: string) {
  const [row] = await database.db.select({ username: accounts.username, domain: accounts.domain })
    .from(accounts).where(eq(accounts.id, accountId));
  return row;
}

/** The featured tag routes, mounted at the root of the app. */
export function featuredTagRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const readAccounts = requireUser("read:accounts");
  const writeAccounts = requireUser("write:accounts");

  app.get("/api/v1/featured_tags", readAccounts, async (c) => {
    const { database, config } = c.get("ctx");
    // Until every status command calls refreshFeaturedTagStats, the owner's
    // own list recounts (at most config.limits.maxFeaturedTags rows).
    await refreshFeaturedTagStats(database.db, me(c));
    const account = await handleOf(database, me(c));
    const rows = await featuredTagsOf(database, me(c));
    return c.json(rows.map((r) => featuredTagEntity(config.origin, account, r)));
  });

  app.get("/api/v1/featured_tags/suggestions", readAccounts, async (c) => {
    const { database, config } = c.get("ctx");
    const tags = await featuredTagSuggestions(database.db, me(c));
    return c.json(await serializeTags(database, config.origin, tags, { accountId: me(c) }));
  });

  app.post("/api/v1/featured_tags", writeAccounts, async (c) => {
    const { database, config } = c.get("ctx");
    const name = readString(await params(c), "name", { maxLength: MAX_NAME_INPUT });
    if (!name) throw validationFailed("Name can't be blank");
    let result;
    try {
      result = await featureTag(database.db, me(c), name, config.limits.maxFeaturedTags);
    } catch (error) {
      throw relationshipError(error);
    }
    const account = await handleOf(database, me(c));
    return c.json(featuredTagEntity(config.origin, account, {
      id: result.featuredTag.id,
      name: result.tag.name,
      statusesCount: result.featuredTag.statusesCount,
      lastStatusAt: result.featuredTag.lastStatusAt,
    }));
  });

  app.delete("/api/v1/featured_tags/:id", writeAccounts, async (c) => {
    const id = c.req.param("id");
    if (!isId(id)) throw new ApiError(404, "Record not found");
    try {
      await deleteFeaturedTag(c.get("ctx").database.db, me(c), id);
    } catch (error) {
      throw relationshipError(error);
    }
    return c.json({});
  });
  return app;
}
