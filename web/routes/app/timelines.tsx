/**
 * The web app's / (signed in), /home, /public, /public/local, /public/remote, /tags/:name (signed in), /lists/:id (design 35 §2; engineer A). Mounted by mod.ts;
 * every route is behind appPage() (session.ts) or signedInBranch() (branch.ts).
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";

export function appTimelineRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  return app;
}
