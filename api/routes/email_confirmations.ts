/**
 * E-mail confirmation:
 * - GET /auth/confirmation?confirmation_token=… (the link in the mail) → HTML page
 * - POST /api/v1/emails/confirmations (write:accounts, user token of the signing-up app)
 *   → {} (resend, optionally to a new `email`)
 * - GET /api/v1/emails/check_confirmation (read:accounts) → true or false
 *
 * The resend route follows Mastodon's Api::V1::Emails::ConfirmationsController:
 * it works for unconfirmed logins (which every other user route refuses), only
 * for the application the user signed up with, and only while an address
 * awaits confirmation.
 */
import { Hono } from "hono";
import { markWrite } from "../../db/write_marks.ts";
import { asc, eq } from "drizzle-orm";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { readString } from "../readers.ts";
import { requireScopes } from "../middleware/scopes.ts";
import { withValidation } from "../validation_errors.ts";
import { MessagePage } from "../pages/auth/layout.tsx";
import { sendHtmlPage } from "./page_response.ts";
import {
  changePendingEmail,
  CONFIRMATION_PATH,
  type ConfirmationResult,
  confirmEmail,
  requestConfirmation,
} from "../../actors/email_confirmation.ts";
import { isValidEmail } from "../../actors/email_address.ts";
import { lookUpEmailDomain } from "../../actors/access_blocks/email_mx.ts";
import { oauthAccessTokens, users } from "../../db/schema.ts";
import type { Executor } from "../../db/connection.ts";

/** Mastodon's refusals for the resend endpoint. */
export const RESEND_ERRORS = {
  otherApplication:
    "This method is only available to the application the user originally signed-up with",
  notAwaiting: "This method is only available while the e-mail is awaiting confirmation",
  userRequired: "This method requires an authenticated user",
} as const;

/**
 * The application a user signed up with: the one that received the user's
 * first token (registration issues it in the same transaction).
 */
async function signUpApplicationId(db: Executor, userId: string): Promise<string | null> {
  const [row] = await db.select({ applicationId: oauthAccessTokens.applicationId })
    .from(oauthAccessTokens).where(eq(oauthAccessTokens.userId, userId))
    .orderBy(asc(oauthAccessTokens.id)).limit(1);
  return row?.applicationId ?? null;
}

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

/** The routes, mounted at the root of the app. */
export function emailConfirmationRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get(CONFIRMATION_PATH, async (c) => {
    const { config, database } = c.get("ctx");
    const token = c.req.query("confirmation_token") ?? "";
    // A GET that writes: mark it as the app marks other methods, so that this
    // process's cached token stops refusing the user at once, not only when
    // the database's change notification arrives.
    markWrite(database);
    const result = await confirmEmail(database.db, token);
    markWrite(database);
    const { status, page } = confirmationPage(result, config.instance.title);
    return await sendHtmlPage(c, "account", page, status);
  });

  // Any token kind here: the user check below gives Mastodon's own message, and
  // unconfirmed logins (which requireUser refuses) are the ones that need this.
  app.post("/api/v1/emails/confirmations", requireScopes("write:accounts"), async (c) => {
    const ctx = c.get("ctx");
    const db = ctx.database.db;
    const token = c.get("token")!;
    const user = c.get("user");
    if (
      !user || !token.applicationId ||
      await signUpApplicationId(db, user.id) !== token.applicationId
    ) {
      return c.json({ error: RESEND_ERRORS.otherApplication }, 403);
    }
    const [row] = await db.select({ unconfirmedEmail: users.unconfirmedEmail }).from(users)
      .where(eq(users.id, user.id)).limit(1);
    if (user.confirmed && !row?.unconfirmedEmail) {
      return c.json({ error: RESEND_ERRORS.notAwaiting }, 403);
    }
    const email = readString(await params(c), "email", { maxLength: 1000 });
    if (email != null) {
      // A new address meets the sign-up's DNS check too (Mastodon's
      // EmailMxValidator runs on every change), before any write.
      const dns = ctx.config.emailDomainCheck && isValidEmail(email)
        ? await lookUpEmailDomain(email, ctx.resolveEmailDns)
        : undefined;
      await withValidation(() => changePendingEmail(db, user.id, email, dns));
    }
    await requestConfirmation(ctx, user.id);
    return c.json({});
  });

  app.get("/api/v1/emails/check_confirmation", requireScopes("read:accounts"), (c) => {
    const user = c.get("user");
    if (!user) return c.json({ error: RESEND_ERRORS.userRequired }, 401);
    return c.json(user.confirmed);
  });

  return app;
}
