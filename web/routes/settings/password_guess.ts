/**
 * The one check of a signed-in user's own password (Mastodon's
 * current_password: the e-mail and password changes, moving, deleting the
 * account, turning two-factor sign-in off, and its challenge before setting
 * two-factor sign-in up). A typed password is a guess like
 * any other: it counts in the account's sign-in bucket (Rack::Attack's
 * throttle_login_attempts, the one `POST /auth/sign_in` counts in), so a
 * stolen session cannot try passwords without end, and 25 guesses an hour
 * are all anyone gets, whichever forms they are spread over. A blank field
 * tests nothing and is not counted.
 *
 * Only this module makes the ConfirmedPassword the commands ask for
 * (actors/auth/sessions.ts), so no command can test a password uncounted.
 */
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { countRequest, RATE_LIMITS, refusalHeaders } from "../../../api/middleware/rate_limit.ts";
import { type ConfirmedPassword, passwordMatches } from "../../../actors/auth/sessions.ts";
import type { FieldErrors } from "../../pages/auth/layout.tsx";

/** How a typed password was taken: right (with its proof), wrong, blank, or one guess too many. */
export type PasswordGuess =
  | { outcome: "ok"; confirmed: ConfirmedPassword }
  | { outcome: "wrong" | "blank" | "limited" };

/**
 * Counts the guess in `userId`'s sign-in bucket, then tests it. Past the
 * limit nothing is tested (the right password is refused too, as at
 * sign-in) and the refusal's headers (Retry-After, X-RateLimit-*) are set on
 * the response being built.
 */
export async function checkOwnPassword(
  c: Context<ApiEnv>,
  userId: string,
  password: string,
): Promise<PasswordGuess> {
  if (password === "") return { outcome: "blank" };
  const { config, database } = c.get("ctx");
  if (config.rateLimits) {
    const now = c.get("ctx").core.rateLimits.clock();
    const [state] = await countRequest(c.get("ctx"), [{
      rule: RATE_LIMITS.signInAccount,
      subject: `user:${userId}`,
    }], now);
    if (state.count > state.rule.limit) {
      for (const [name, value] of Object.entries(refusalHeaders(state, now))) c.header(name, value);
      return { outcome: "limited" };
    }
  }
  if (!await passwordMatches(database.db, userId, password)) return { outcome: "wrong" };
  return { outcome: "ok", confirmed: { userId } as ConfirmedPassword };
}

/** The field's error past the limit ("Current password was tried too many times…"). */
export const TOO_MANY_GUESSES = "was tried too many times: please wait and try again later";

/** A refused guess as the form shows it: the field's error, and the page's status. */
export function passwordRefusal(
  guess: Exclude<PasswordGuess, { outcome: "ok" }>,
  field: string,
): { errors: FieldErrors; status: 422 | 429 } {
  const [error, description, status] = {
    blank: ["ERR_BLANK", "can't be blank", 422] as const,
    wrong: ["ERR_INVALID", "is invalid", 422] as const,
    limited: ["ERR_LIMITED", TOO_MANY_GUESSES, 429] as const,
  }[guess.outcome];
  return { errors: { [field]: [{ error, description }] }, status };
}
