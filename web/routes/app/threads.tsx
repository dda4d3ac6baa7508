/**
 * The web app's /@acct/:id (signed in) and its refresh fragment (design 35 §2; engineer A). Mounted by mod.ts;
 * every route is behind appPage() (session.ts) or signedInBranch() (branch.ts).
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";

export function appThreadRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  return app;
}
