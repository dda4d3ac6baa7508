/**
 * The web app's /keyboard_shortcuts (design 35 §2; engineer C). Mounted by mod.ts;
 * every route is behind appPage() (session.ts) or signedInBranch() (branch.ts).
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";

export function appShortcutRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  return app;
}
