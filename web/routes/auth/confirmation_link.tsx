/**
 * The page the e-mail confirmation link opens:
 * GET /auth/confirmation?confirmation_token=… confirms the address
 * (actors/auth/email_confirmation.ts) and says what happened, with a status
 * to match. (Asking for the link again: confirmation.tsx; the API's resend:
 * api/routes/email_confirmations.ts.)
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import {
  CONFIRMATION_PATH,
  type ConfirmationResult,
  confirmEmail,
} from "../../../actors/auth/email_confirmation.ts";
import { MessagePage } from "../../pages/auth/layout.tsx";
import { sendHtmlPage } from "../page_response.ts";

/** The page the confirmation link opens: what happened, and a status to match. */
function confirmationPage(result: ConfirmationResult, instanceTitle: string): {
  status: 200 | 404 | 410 | 422;
  page: unknown;
} {
  const page = (status: 200 | 404 | 410 | 422, title: string, text: string) => ({
    status,
    page: MessagePage({
      title,
      instanceTitle,
      text,
      alert: status !== 200,
      links: status === 200 ? [{ href: "/auth/sign_in", label: "Sign in" }] : undefined,
    }),
  });
  switch (result.status) {
    case "confirmed":
      return page(
        200,
        "E-mail address confirmed",
        `Thank you, @${result.username}: ${result.email} is confirmed. You can now use your account.`,
      );
    case "already_confirmed":
      return page(200, "Already confirmed", "This e-mail address was already confirmed.");
    case "expired":
      return page(
        410,
        "This link has expired",
        "Confirmation links work for two days. Ask the app you signed up with for a new one.",
      );
    case "email_taken":
      return page(422, "Address in use", "This e-mail address now belongs to another account.");
    default:
      return page(
        404,
        "Invalid confirmation link",
        "This confirmation link is not valid. Check that the whole link was copied.",
      );
  }
}

export function confirmationLinkRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get(CONFIRMATION_PATH, async (c) => {
    const { config, database, core } = c.get("ctx");
    const token = c.req.query("confirmation_token") ?? "";
    // A GET that writes: mark it as the app marks other methods, so that this
    // process's cached token stops refusing the user at once, not only when
    // the database's change notification arrives.
    core.writes.mark();
    const result = await confirmEmail(database.db, token);
    core.writes.mark();
    const { status, page } = confirmationPage(result, config.instance.title);
    return await sendHtmlPage(c, "account", page, status);
  });

  return app;
}
