/** The Hono environment: per-request variables that middleware sets. */
import type { AppContext } from "../context.ts";

export interface ApiEnv {
  Variables: {
    ctx: AppContext;
  };
}
