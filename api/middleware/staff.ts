/**
 * Admin API routes: a user token with the route's admin scope (through the
 * one scope middleware) whose role holds the route's permission
 * (model/permissions.ts, Mastodon's role flags). Mastodon answers a
 * missing permission with 403 "This action is not allowed".
 *
 * ```ts
 * app.get("/api/v1/admin/reports", requireStaff("manage_reports", "admin:read:reports"), handler);
 * ```
 */
import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "../env.ts";
import { checkToken } from "./scopes.ts";
import { hasPermission, type Permission } from "../../model/permissions.ts";

export const NOT_ALLOWED = "This action is not allowed";

/** A staff user token: one of `scopes`, and a role with `permission`. */
export function requireStaff(
  permission: Permission,
  ...scopes: string[]
): MiddlewareHandler<ApiEnv> {
  const requirement = { kind: "user" as const, scopes: [...scopes] };
  return async (c, next) => {
    const refusal = checkToken(c, requirement);
    if (refusal) return refusal;
    if (!hasPermission(c.get("user")!.role, permission)) {
      return c.json({ error: NOT_ALLOWED }, 403);
    }
    await next();
  };
}
