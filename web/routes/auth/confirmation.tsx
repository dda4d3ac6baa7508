/**
 * Asking for the e-mail confirmation link again, as Devise's paranoid
 * ConfirmationsController in Mastodon:
 * - GET /auth/confirmation/new: the form asking for the address;
 * - POST /auth/confirmation: mails a new link when the address awaits
 *   confirmation (actors/auth/email_confirmation.ts resendConfirmationTo), and
 *   answers the same page either way; limited per IP by the middleware and
 *   to 5 per 30 minutes per address here, as Rack::Attack does.
 * (GET /auth/confirmation?confirmation_token=… is the link itself:
 * confirmation_link.tsx.)
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { RATE_LIMITS } from "../../../api/middleware/rate_limit.ts";
import { resendConfirmationTo } from "../../../actors/auth/email_confirmation.ts";
import { NewConfirmationPage } from "../../pages/auth/confirmation.tsx";
import { MessagePage } from "../../pages/auth/layout.tsx";
import { signInCsrfToken } from "./authorize_request.ts";
import { formField, formParams, formTokenMatches, sendAccountPage } from "./page.ts";
import { overEmailLimit } from "./password.tsx";

/** The one answer, whether or not the address has an account waiting. */
export const CONFIRMATION_SENT =
  "If your e-mail address exists in our database, you will receive an e-mail with instructions for how to confirm your e-mail address in a few minutes.";
const FORM_EXPIRED = "This form expired. Please go back, reload the page and try again.";

export function confirmationResendRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/auth/confirmation/new", (c) =>
    sendAccountPage(
      c,
      <NewConfirmationPage
        instanceTitle={c.get("ctx").config.instance.title}
        csrfToken={signInCsrfToken(c)}
      />,
    ));

  app.post("/auth/confirmation", async (c) => {
    const instanceTitle = c.get("ctx").config.instance.title;
    const p = await formParams(c);
    if (!p || !formTokenMatches(c, p)) {
      return await sendAccountPage(
        c,
        <MessagePage
          title="Form expired"
          instanceTitle={instanceTitle}
          text={FORM_EXPIRED}
          alert
        />,
        403,
      );
    }
    const email = formField(p, "email", 400);
    const over = await overEmailLimit(c, email, RATE_LIMITS.emailConfirmationsEmail);
    if (over) return over;
    await resendConfirmationTo(c.get("ctx"), email);
    return await sendAccountPage(
      c,
      <MessagePage
        title="Check your inbox"
        instanceTitle={instanceTitle}
        text={CONFIRMATION_SENT}
        links={[{ href: "/auth/sign_in", label: "Sign in" }]}
      />,
    );
  });

  return app;
}
