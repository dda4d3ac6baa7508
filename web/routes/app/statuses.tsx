/**
 * The web app's /statuses/new, /share, POST /statuses, /statuses/:id, edit, update, history, delete, /scheduled_statuses* (design 35 §2; engineer A). Mounted by mod.ts;
 * every route is behind appPage() (session.ts) or signedInBranch() (branch.ts).
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";

export function appStatusRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  return app;
}
