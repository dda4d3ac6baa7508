/**
 * E-mail confirmation in the API (the link in the mail opens a page:
 * web/routes/auth/confirmation_link.tsx):
 * - POST /api/v1/emails/confirmations (write:accounts, user token of the signing-up app)
 *   → {} (resend, optionally to a new `email`)
 * - GET /api/v1/emails/check_confirmation (read:accounts) → true or false
 *
 * The resend route follows Mastodon's Api::V1::Emails::ConfirmationsController:
 * it works for unconfirmed logins (which every other user route refuses), only
 * for the application the user signed up with (recorded at registration, never
 * guessed from the tokens: any app the user authorized later holds one), and
 * only while an address awaits confirmation. It sets a new address only for
 * an account not yet confirmed, and the current address is told
 * (actors/auth/email_confirmation.ts requestEmailChange).
 */
import { Hono } from "hono";
import { eq } from "drizzle-orm";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { readString } from "../readers.ts";
import { requireScopes } from "../middleware/scopes.ts";
import { withValidation } from "../validation_errors.ts";
import { requestConfirmation, requestEmailChange } from "../../actors/auth/email_confirmation.ts";
import { users } from "../../db/schema/mod.ts";

/** Mastodon's refusals for the resend endpoint. */
export const RESEND_ERRORS = {
  otherApplication:
    "This method is only available to the application the user originally signed-up with",
  notAwaiting: "This method is only available while the e-mail is awaiting confirmation",
  confirmedAccount:
    "This method can only change the e-mail address of an account that is not confirmed yet",
  userRequired: "This method requires an authenticated user",
} as const;

/**
 * Whether the token's app is the one the user signed up with
 * (`users.created_by_application_id`, set by the API's registration; null
 * for web and command-line accounts, which no app may speak for here).
 */
function isSignUpApplication(
  user: { createdByApplicationId: string | null },
  applicationId: string | null,
): boolean {
  return user.createdByApplicationId != null && user.createdByApplicationId === applicationId;
}

/** The routes, mounted at the root of the app. */
export function emailConfirmationRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  // Any token kind here: the user check below gives Mastodon's own message, and
  // unconfirmed logins (which requireUser refuses) are the ones that need this.
  app.post("/api/v1/emails/confirmations", requireScopes("write:accounts"), async (c) => {
    const ctx = c.get("ctx");
    const token = c.get("token")!;
    const authUser = c.get("user");
    const [user] = authUser
      ? await ctx.database.db.select({
        createdByApplicationId: users.createdByApplicationId,
        confirmedAt: users.confirmedAt,
        unconfirmedEmail: users.unconfirmedEmail,
      }).from(users).where(eq(users.id, authUser.id)).limit(1)
      : [];
    if (!authUser || !user || !isSignUpApplication(user, token.applicationId)) {
      return c.json({ error: RESEND_ERRORS.otherApplication }, 403);
    }
    if (user.confirmedAt && !user.unconfirmedEmail) {
      return c.json({ error: RESEND_ERRORS.notAwaiting }, 403);
    }
    const email = readString(await params(c), "email", { maxLength: 1000 });
    if (email != null) {
      // Only an account nobody confirmed yet: a confirmed one changes its
      // address in the settings, with its password.
      if (user.confirmedAt) return c.json({ error: RESEND_ERRORS.confirmedAccount }, 403);
      const change = await withValidation(() => requestEmailChange(ctx, authUser.id, email));
      // A new address was just mailed its link.
      if (change === "pending") return c.json({});
    }
    await requestConfirmation(ctx, authUser.id);
    return c.json({});
  });

  app.get("/api/v1/emails/check_confirmation", requireScopes("read:accounts"), (c) => {
    const user = c.get("user");
    if (!user) return c.json({ error: RESEND_ERRORS.userRequired }, 401);
    return c.json(user.confirmed);
  });

  return app;
}
