/**
 * Follow requests to the signed-in user:
 * - GET /api/v1/follow_requests → Account[] (Link paging by request id)
 * - POST /api/v1/follow_requests/:account_id/authorize → Relationship
 * - POST /api/v1/follow_requests/:account_id/reject → Relationship
 * No pending request from that account (or no such account) → 404.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { setLinkHeader } from "../pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { authorizeFollowRequest, rejectFollowRequest } from "../../actors/relationships/follows.ts";
import { answerRelationship, me, targetId } from "./relationships.ts";
import { readFollowRequests } from "../reads/accounts.ts";

/** The follow request routes, mounted at the root of the app. */
export function followRequestRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/follow_requests", requireUser("read:follows", "follow"), async (c) => {
    const read = await readFollowRequests(c.get("ctx"), me(c), await params(c));
    setLinkHeader(c, read.cursors);
    return c.json(read.items);
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
