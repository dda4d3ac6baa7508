/**
 * What the routes about other accounts share: who is looking, the scope check
 * Mastodon applies to public routes when a token is sent anyway, and finding
 * the account named by `:id`.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { checkToken } from "../middleware/scopes.ts";
import { isId } from "../../db/ids.ts";
import { findViewableAccount, type ViewableAccount } from "../../db/queries/accounts.ts";

/** The Mastodon message for every missing, malformed or hidden record. */
export const NOT_FOUND = "Record not found";

/** The signed-in viewer's account id, or null for anonymous and app-token requests. */
export function viewerAccountId(c: Context<ApiEnv>): string | null {
  return c.get("user")?.accountId ?? null;
}

/**
 * Mastodon's `authorize_if_got_token!`: the route is public, but a valid
 * token that comes along must carry one of `scopes` (403 otherwise). An
 * invalid token is simply ignored, as Doorkeeper ignores it there.
 */
export function scopesIfToken(...scopes: string[]): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (c.get("token")) {
      const refusal = checkToken(c, { kind: "token", scopes });
      if (refusal) return refusal;
    }
    await next();
  };
}

/**
 * The account named by the `:id` path parameter, or a 404 "Record not found"
 * for an unknown, malformed, deleted or not yet approved account.
 */
export async function accountFromPath(c: Context<ApiEnv>): Promise<ViewableAccount> {
  const id = c.req.param("id");
  if (!isId(id)) throw new ApiError(404, NOT_FOUND);
  const account = await findViewableAccount(c.get("ctx").database, id);
  if (!account) throw new ApiError(404, NOT_FOUND);
  return account;
}
