/**
 * GET /api/v1/instance/domain_blocks (Mastodon 4.0): the servers this one
 * moderates, as DomainBlock entities (silence and suspend, the strictest
 * first). Who may see the list is SHOW_DOMAIN_BLOCKS (Mastodon's
 * show_domain_blocks: `all`, `users`, or `disabled`, the default, which
 * answers 404 as Mastodon does); the public comments are shown per
 * SHOW_DOMAIN_BLOCKS_RATIONALE the same way.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import type { DomainBlocksAudience } from "../../config.ts";
import { serializeDomainBlock } from "../entities/domain_block.ts";
import { publicDomainBlocks } from "../../actors/moderation/instance_domain_blocks.ts";

/** Whether SHOW_DOMAIN_BLOCKS(_RATIONALE) lets this visitor see the list (also the about page). */
export function domainBlocksShown(audience: DomainBlocksAudience, signedIn: boolean): boolean {
  return audience === "all" || (audience === "users" && signedIn);
}

export function instanceDomainBlockRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/api/v1/instance/domain_blocks", async (c) => {
    const { config, database } = c.get("ctx");
    const signedIn = c.get("user") != null;
    if (!domainBlocksShown(config.showDomainBlocks, signedIn)) {
      throw new ApiError(404, "Record not found");
    }
    const withComment = domainBlocksShown(config.showDomainBlocksRationale, signedIn);
    const rows = await publicDomainBlocks(database.db);
    c.header("Cache-Control", signedIn ? "private, no-store" : "public, max-age=180");
    return c.json(rows.map((row) => serializeDomainBlock(row, withComment)));
  });
  return app;
}
