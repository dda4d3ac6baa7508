/**
 * The HTTP application: Fedify answers the ActivityPub and discovery routes,
 * Hono everything else (Mastodon API, OAuth, HTML pages).
 */
import { Hono } from "hono";
import type { AppContext } from "../context.ts";
import type { ApiEnv } from "./env.ts";
import { apiError, installErrorHandlers } from "./errors.ts";

/** Paths that never belong to Fedify; skipping it there keeps the API path short. */
function isApiPath(path: string): boolean {
  return path.startsWith("/api/") || path.startsWith("/oauth/") || path === "/health";
}

export function createApp(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  installErrorHandlers(app);

  app.use(async (c, next) => {
    c.set("ctx", ctx);
    if (isApiPath(c.req.path)) return await next();
    return await ctx.federation.fetch(c.req.raw, {
      contextData: ctx,
      onNotFound: async () => {
        await next();
        return c.res;
      },
      onNotAcceptable: async () => {
        // An HTML page of ours may still answer (profile pages are negotiated).
        await next();
        if (c.res.status !== 404) return c.res;
        return new Response("Not Acceptable", {
          status: 406,
          headers: { "Content-Type": "text/plain", Vary: "Accept" },
        });
      },
    });
  });

  app.notFound((c) => {
    if (isApiPath(c.req.path)) return apiError(c, 404, "Record not found");
    return c.text("Not Found", 404);
  });
  return app;
}
