/**
 * CORS for the paths browser clients call from other origins (web clients
 * such as Elk or Phanpy are served from their own domain): the API, the OAuth
 * token endpoints, /.well-known and NodeInfo. Mirrors Mastodon's rack-cors
 * setup: any origin, no credentials (tokens travel in the Authorization
 * header, never in cookies), and the paging and rate-limit headers exposed.
 *
 * It must wrap everything else, Fedify included, so that Fedify's WebFinger
 * and NodeInfo answers, 429s and errors carry the headers too.
 */
import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "../env.ts";
import { setResponseHeaders } from "./headers.ts";

const OAUTH_CORS_PATHS = new Set(["/oauth/token", "/oauth/revoke", "/oauth/userinfo"]);

/** Whether a path is open to cross-origin requests. */
export function isCorsPath(path: string): boolean {
  return path.startsWith("/api/") || OAUTH_CORS_PATHS.has(path) ||
    path.startsWith("/.well-known/") || path.startsWith("/nodeinfo/") || path === "/nodeinfo";
}

/** Response headers a cross-origin script may read. */
export const EXPOSED_HEADERS = [
  "Link",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-Request-Id",
  "Idempotency-Key",
  "Mastodon-Async-Refresh",
  "Deprecation",
];

const ALLOWED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

/** The middleware: answers preflights with 204 and decorates every other response. */
export function cors(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (!isCorsPath(c.req.path)) return await next();
    if (c.req.method === "OPTIONS" && c.req.header("access-control-request-method")) {
      const requested = c.req.header("access-control-request-headers");
      return new Response(null, {
        status: 204,
        headers: {
          "Access-Control-Allow-Origin": "*",
          "Access-Control-Allow-Methods": ALLOWED_METHODS,
          // Echo what the browser asks for, as rack-cors' `headers: :any` does.
          "Access-Control-Allow-Headers": requested ?? "Authorization, Content-Type",
          "Access-Control-Expose-Headers": EXPOSED_HEADERS.join(", "),
          "Access-Control-Max-Age": "7200",
          Vary: "Access-Control-Request-Headers",
        },
      });
    }
    await next();
    setResponseHeaders(c, {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Expose-Headers": EXPOSED_HEADERS.join(", "),
    });
  };
}
