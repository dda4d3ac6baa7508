/**
 * The signed-in user's own domain blocks:
 * - GET /api/v1/domain_blocks → string[] (Link paging by row id; 100 by default, 200 at most)
 * - POST /api/v1/domain_blocks (domain) → {}
 * - DELETE /api/v1/domain_blocks (domain, in the body or the query) → {}
 * - GET /api/v1/domain_blocks/preview?domain= (write:blocks, Mastodon 4.3) →
 *   {following_count, followers_count}: the follows a block would end
 * Domains are normalized (lower case, punycode); a blank or invalid one is a 422.
 */
import { Hono } from "hono";
import { and, eq } from "drizzle-orm";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { PAGE_SIZES, readPageParams } from "../pagination.ts";
import { readString } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { accountDomainBlocks } from "../../db/schema/mod.ts";
import {
  blockDomain,
  domainBlockPreview,
  unblockDomain,
} from "../../actors/relationships/domain_blocks.ts";
import { me, relationshipError } from "./relationships.ts";
import { linkRelationPage } from "../relation_pagination.ts";
import { pageWindow } from "../../db/queries/id_paging.ts";

/** Longest `domain` value looked at; longer input is invalid anyway. */
const MAX_DOMAIN_INPUT = 1_024;

/** The domain block routes, mounted at the root of the app. */
export function domainBlockRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/domain_blocks", requireUser("read:blocks", "follow"), async (c) => {
    const page = readPageParams(await params(c), PAGE_SIZES.domainBlocks);
    const { db } = c.get("ctx").database;
    const window = pageWindow(accountDomainBlocks.id, page);
    const rows = await db.select({ id: accountDomainBlocks.id, domain: accountDomainBlocks.domain })
      .from(accountDomainBlocks)
      .where(and(eq(accountDomainBlocks.accountId, me(c)), window.where))
      .orderBy(window.order).limit(page.limit);
    if (window.reverse) rows.reverse();
    linkRelationPage(c, rows, page.limit);
    return c.json(rows.map((r) => r.domain));
  });

  const writeBlocks = requireUser("write:blocks", "follow");
  app.get("/api/v1/domain_blocks/preview", writeBlocks, async (c) => {
    const domain = readString(await params(c), "domain", { maxLength: MAX_DOMAIN_INPUT }) ?? "";
    try {
      const counts = await domainBlockPreview(c.get("ctx"), me(c), domain);
      return c.json({ following_count: counts.following, followers_count: counts.followers });
    } catch (error) {
      throw relationshipError(error);
    }
  });
  app.post("/api/v1/domain_blocks", writeBlocks, async (c) => {
    const domain = readString(await params(c), "domain", { maxLength: MAX_DOMAIN_INPUT }) ?? "";
    try {
      await blockDomain(c.get("ctx"), me(c), domain);
    } catch (error) {
      throw relationshipError(error);
    }
    return c.json({});
  });
  app.delete("/api/v1/domain_blocks", writeBlocks, async (c) => {
    const domain = readString(await params(c), "domain", { maxLength: MAX_DOMAIN_INPUT }) ?? "";
    try {
      await unblockDomain(c.get("ctx"), me(c), domain);
    } catch (error) {
      throw relationshipError(error);
    }
    return c.json({});
  });
  return app;
}
