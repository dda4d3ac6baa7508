/**
 * A password typed on a settings page (to move or delete the account) is a
 * guess like any other: it counts in the account's sign-in bucket
 * (Rack::Attack's throttle_login_attempts), so a stolen session cannot try
 * passwords without end.
 */
import type { Context } from "hono";
import type { ApiEnv } from "../../env.ts";
import { countRequest, RATE_LIMITS, rateLimitClock } from "../../middleware/rate_limit.ts";
import { passwordMatches } from "../../../actors/sessions.ts";

/** How a typed password was taken: right, wrong, or one guess too many. */
export type PasswordGuess = "ok" | "wrong" | "limited";

export async function checkOwnPassword(
  c: Context<ApiEnv>,
  userId: string,
  password: string,
): Promise<PasswordGuess> {
  const { config, database } = c.get("ctx");
  if (config.rateLimits) {
    const [state] = await countRequest(database, [{
      rule: RATE_LIMITS.signInAccount,
      subject: `user:${userId}`,
    }], rateLimitClock.now());
    if (state.count > state.rule.limit) return "limited";
  }
  return await passwordMatches(database.db, userId, password) ? "ok" : "wrong";
}
