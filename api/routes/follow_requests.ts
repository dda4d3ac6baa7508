/**
 * Follow requests to the signed-in user:
 * - GET /api/v1/follow_requests → Account[] (Link paging by request id)
 * - POST /api/v1/follow_requests/:account_id/authorize → Relationship
 * - POST /api/v1/follow_requests/:account_id/reject → Relationship
 * No pending request from that account (or no such account) → 404.
 */
import { Hono } from "hono";
import { and, eq, isNull } from "drizzle-orm";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { PAGE_SIZES, readPageParams } from "../pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { loadAccountEntities } from "../entities/account.ts";
import { accounts, followRequests } from "../../db/schema/mod.ts";
import { authorizeFollowRequest, rejectFollowRequest } from "../../actors/relationships/follows.ts";
import { answerRelationship, me, targetId } from "./relationships.ts";
import { linkRelationPage } from "../relation_pagination.ts";
import { pageWindow } from "../../db/queries/id_paging.ts";

/** The follow request routes, mounted at the root of the app. */
export function followRequestRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/follow_requests", requireUser("read:follows", "follow"), async (c) => {
    const page = readPageParams(await params(c), PAGE_SIZES.accounts);
    const { db } = c.get("ctx").database;
    const window = pageWindow(followRequests.id, page);
    const rows = await db.select({ id: followRequests.id, accountId: followRequests.accountId })
      .from(followRequests)
      .innerJoin(accounts, eq(accounts.id, followRequests.accountId))
      .where(
        and(eq(followRequests.targetAccountId, me(c)), isNull(accounts.deletedAt), window.where),
      )
      .orderBy(window.order).limit(page.limit);
    if (window.reverse) rows.reverse();
    linkRelationPage(c, rows, page.limit);
    const { config } = c.get("ctx");
    return c.json(await loadAccountEntities(db, config, rows.map((r) => r.accountId)));
  });

  const writeFollows = requireUser("write:follows", "follow");
  app.post("/api/v1/follow_requests/:account_id/authorize", writeFollows, async (c) => {
    const requester = targetId(c, "account_id");
    return await answerRelationship(
      c,
      requester,
      () => authorizeFollowRequest(c.get("ctx"), me(c), requester),
    );
  });
  app.post("/api/v1/follow_requests/:account_id/reject", writeFollows, async (c) => {
    const requester = targetId(c, "account_id");
    return await answerRelationship(
      c,
      requester,
      () => rejectFollowRequest(c.get("ctx"), me(c), requester),
    );
  });
  return app;
}
