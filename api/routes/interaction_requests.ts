/**
 * Interaction requests (GoToSocial's client API, issue 34): the favourites,
 * replies and boosts of the user's statuses that wait for their approval.
 * - GET /api/v1/interaction_requests (read:notifications): pending ones,
 *   newest first; `status_id`, `favourites`, `replies`, `reblogs` (default
 *   true; all false → 400), `max_id`/`since_id`/`min_id`, `limit` (40, at
 *   most 80); the `Link` header keeps the filters.
 * - GET /api/v1/interaction_requests/:id (read:notifications): any state.
 * - POST /api/v1/interaction_requests/:id/authorize, …/reject
 *   (write:statuses): a pending one.
 * Someone else's request, or a decided one for the POSTs → 404.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { setLinkHeader } from "../pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { readInteractionRequests } from "../reads/interaction_requests.ts";
import { serializeInteractionRequests } from "../entities/interaction_request.ts";
import { isId } from "../../db/ids.ts";
import { type InteractionRequestRow, ownRequest } from "../../db/queries/interaction_requests.ts";
import { acceptRequest, rejectRequest } from "../../actors/interactions/requests.ts";
import { NotFoundError } from "../../model/errors.ts";
import { NOT_FOUND } from "./accounts_access.ts";

function me(c: Context<ApiEnv>): string {
  return c.get("user")!.accountId;
}

function requestIdParam(c: Context<ApiEnv>): string {
  const id = c.req.param("id") ?? "";
  if (!isId(id)) throw new ApiError(404, NOT_FOUND);
  return id;
}

async function answerOne(c: Context<ApiEnv>, row: InteractionRequestRow): Promise<Response> {
  const [json] = await serializeInteractionRequests(c.get("ctx"), [row], me(c));
  if (!json) throw new ApiError(404, NOT_FOUND);
  return c.json(json);
}

/** Runs a decision; a missing, foreign or decided request is 404. */
async function decide(
  c: Context<ApiEnv>,
  command: typeof acceptRequest,
): Promise<Response> {
  const id = requestIdParam(c);
  try {
    return await answerOne(c, await command(c.get("ctx"), me(c), id));
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, NOT_FOUND);
    throw error;
  }
}

/** The interaction request routes, mounted at the root of the app. */
export function interactionRequestRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = requireUser("read:notifications");
  const write = requireUser("write:statuses");

  app.get("/api/v1/interaction_requests", read, async (c) => {
    const read = await readInteractionRequests(c.get("ctx"), me(c), await params(c));
    setLinkHeader(c, read.cursors);
    return c.json(read.items);
  });

  app.get("/api/v1/interaction_requests/:id", read, async (c) => {
    const row = await ownRequest(c.get("ctx").database.db, me(c), requestIdParam(c));
    if (!row) throw new ApiError(404, NOT_FOUND);
    return await answerOne(c, row);
  });

  app.post("/api/v1/interaction_requests/:id/authorize", write, (c) => decide(c, acceptRequest));
  app.post("/api/v1/interaction_requests/:id/reject", write, (c) => decide(c, rejectRequest));
  return app;
}
