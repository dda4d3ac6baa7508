/**
 * Password reset pages, as Devise's PasswordsController in Mastodon:
 * - GET /auth/password/new: the form asking for an e-mail address;
 * - POST /auth/password: mails a link when the address has an account, and
 *   answers the same page either way (limited per IP by the middleware and
 *   to 5 per 30 minutes per address here, as Rack::Attack does);
 * - GET /auth/password/edit?reset_password_token=…: the new-password form;
 * - POST /auth/password/edit: sets it (actors/auth/password_reset.ts: the token
 *   works once, for an hour; every session and token of the user ends).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { getLogger } from "@logtape/logtape";
import type { ApiEnv } from "../../../api/env.ts";
import { countRequest, RATE_LIMITS, type RateLimit } from "../../../api/middleware/rate_limit.ts";
import { tooManyRequests } from "../too_many_requests.ts";
import {
  requestPasswordReset,
  resetPasswordWithToken,
  resetTokenIsLive,
} from "../../../actors/auth/password_reset.ts";
import { EditPasswordPage, NewPasswordPage } from "../../pages/auth/password.tsx";
import { type FieldErrors, MessagePage } from "../../pages/auth/layout.tsx";
import { signInCsrfToken } from "./authorize_request.ts";
import { formField, formParams, formTokenMatches, sendAccountPage } from "./page.ts";

const logger = getLogger(["rookery", "http", "rate-limit"]);

/** The one answer to a reset request, whether or not the address has an account. */
export const RESET_SENT =
  "If your e-mail address exists in our database, you will receive a password recovery link at your e-mail address in a few minutes.";
export const RESET_INVALID =
  "This password reset link is invalid or has expired. Ask for a new one.";
export const RESET_DONE =
  "Your password has been changed. Every device was signed out: sign in again with the new password.";
const FORM_EXPIRED = "This form expired. Please go back, reload the page and try again.";

function message(
  c: Context<ApiEnv>,
  title: string,
  text: string,
  status: 200 | 403 | 404 = 200,
  links = [{ href: "/auth/sign_in", label: "Sign in" }],
) {
  return sendAccountPage(
    c,
    <MessagePage
      title={title}
      instanceTitle={c.get("ctx").config.instance.title}
      text={text}
      alert={status !== 200}
      links={links}
    />,
    status,
  );
}

const invalidLink = (c: Context<ApiEnv>) =>
  message(c, "Link not valid", RESET_INVALID, 404, [
    { href: "/auth/password/new", label: "Ask for a new link" },
  ]);

/**
 * Counts a request that mails `email` against that address (password resets,
 * or `rule`); the 429 answer when over the limit, else null.
 */
export async function overEmailLimit(
  c: Context<ApiEnv>,
  email: string,
  rule: RateLimit = RATE_LIMITS.passwordResetsEmail,
): Promise<Response | null> {
  const { config } = c.get("ctx");
  const address = email.trim().toLowerCase();
  if (!config.rateLimits || !address) return null;
  try {
    const now = c.get("ctx").core.rateLimits.clock();
    const [state] = await countRequest(
      c.get("ctx"),
      [{ rule, subject: `email:${address}` }],
      now,
    );
    return state.count > state.rule.limit ? tooManyRequests(c, state, now) : null;
  } catch (error) {
    logger.warn("Could not count a mail request: {error}", { error });
    return null;
  }
}

export function passwordResetRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/auth/password/new", (c) =>
    sendAccountPage(
      c,
      <NewPasswordPage
        instanceTitle={c.get("ctx").config.instance.title}
        csrfToken={signInCsrfToken(c)}
      />,
    ));

  app.post("/auth/password", async (c) => {
    const p = await formParams(c);
    if (!p || !formTokenMatches(c, p)) return await message(c, "Form expired", FORM_EXPIRED, 403);
    const email = formField(p, "email", 400);
    const over = await overEmailLimit(c, email);
    if (over) return over;
    await requestPasswordReset(c.get("ctx"), email);
    return await message(c, "Check your inbox", RESET_SENT);
  });

  const showEdit = (c: Context<ApiEnv>, resetToken: string, errors?: FieldErrors) =>
    sendAccountPage(
      c,
      <EditPasswordPage
        instanceTitle={c.get("ctx").config.instance.title}
        csrfToken={signInCsrfToken(c)}
        resetToken={resetToken}
        errors={errors}
      />,
      errors ? 422 : 200,
    );

  app.get("/auth/password/edit", async (c) => {
    const token = (c.req.query("reset_password_token") ?? "").slice(0, 201);
    if (!await resetTokenIsLive(c.get("ctx"), token)) return await invalidLink(c);
    return await showEdit(c, token);
  });

  app.post("/auth/password/edit", async (c) => {
    const p = await formParams(c);
    if (!p || !formTokenMatches(c, p)) return await message(c, "Form expired", FORM_EXPIRED, 403);
    const token = formField(p, "reset_password_token", 201);
    const result = await resetPasswordWithToken(c.get("ctx"), {
      token,
      password: formField(p, "password", 1000),
      confirmation: formField(p, "password_confirmation", 1000),
    });
    if (result.status === "invalid") return await invalidLink(c);
    if (result.status === "problems") return await showEdit(c, token, result.problems.details);
    return await message(c, "Password changed", RESET_DONE);
  });

  return app;
}
