/**
 * The signed-in user's lists of blocked, muted and endorsed accounts:
 * - GET /api/v1/blocks → Account[]
 * - GET /api/v1/mutes → Account[] with `mute_expires_at` (expired mutes left out)
 * - GET /api/v1/endorsements → Account[]
 * All page by the relation row id with Link headers (`since_id` for prev).
 */
import { Hono } from "hono";
import { and, eq, isNull } from "drizzle-orm";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { PAGE_SIZES, readPageParams } from "../pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { loadAccountEntities } from "../entities/account.ts";
import { accounts, blocks, endorsements, mutes } from "../../db/schema/mod.ts";
import { muteActive } from "../../actors/relationships/mutes.ts";
import { me } from "./relationships.ts";
import { linkRelationPage } from "../relation_pagination.ts";
import { pageWindow } from "../../db/queries/id_paging.ts";

type RelationTable = typeof blocks | typeof endorsements | typeof mutes;

/** The blocks, mutes and endorsements lists, mounted at the root of the app. */
export function blockAndMuteRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  /** One page of a relation table's targets for the signed-in account. */
  function listRoute(path: string, scopes: string[], table: RelationTable, mutesOnly = false) {
    app.get(path, requireUser(...scopes), async (c) => {
      const page = readPageParams(await params(c), PAGE_SIZES.accounts);
      const { db } = c.get("ctx").database;
      const window = pageWindow(table.id, page);
      const rows = await db.select({
        id: table.id,
        targetId: table.targetAccountId,
        expiresAt: mutesOnly ? mutes.expiresAt : table.id,
      }).from(table)
        .innerJoin(accounts, eq(accounts.id, table.targetAccountId))
        .where(and(
          eq(table.accountId, me(c)),
          isNull(accounts.deletedAt),
          mutesOnly ? muteActive() : undefined,
          window.where,
        ))
        .orderBy(window.order).limit(page.limit);
      if (window.reverse) rows.reverse();
      linkRelationPage(c, rows, page.limit);
      const { config } = c.get("ctx");
      const entities = await loadAccountEntities(db, config, rows.map((r) => r.targetId));
      if (!mutesOnly) return c.json(entities);
      const expiry = new Map(rows.map((r) => [r.targetId, r.expiresAt as Date | null]));
      return c.json(entities.map((entity) => ({
        ...entity,
        mute_expires_at: expiry.get(entity.id)?.toISOString() ?? null,
      })));
    });
  }

  listRoute("/api/v1/blocks", ["read:blocks", "follow"], blocks);
  listRoute("/api/v1/mutes", ["read:mutes", "follow"], mutes, true);
  listRoute("/api/v1/endorsements", ["read:accounts"], endorsements);
  return app;
}
