/**
 * The route a request's metrics are labelled with: the template of the
 * handler that answered (`/api/v1/statuses/:id`), read after the chain ran.
 * A wildcard middleware that answered (Fedify, CORS, a rate limit) is named
 * by who it was (telemetry/http.ts).
 */
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import type { ApiEnv } from "./env.ts";
import { ANSWERED_BY } from "../telemetry/http.ts";

export function answeringRoute(c: Context<ApiEnv>): string {
  const route = matchedRoutes(c).at(c.req.routeIndex);
  if (route && !(route.method === "ALL" && /^\/?\*$/.test(route.path))) {
    // `:id{[0-9]+}` is labelled `:id`: the pattern is the route's business.
    return route.path.replace(/\{[^}]*\}/g, "");
  }
  if (c.get("answeredByFederation")) return ANSWERED_BY.federation;
  return c.res.status === 404 ? ANSWERED_BY.unmatched : ANSWERED_BY.middleware;
}
