/**
 * The web app's POST /media, GET /media/:id, POST /media/:id/delete (design 35 §2; engineer A). Mounted by mod.ts;
 * every route is behind appPage() (session.ts) or signedInBranch() (branch.ts).
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";

export function appMediaRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  return app;
}
