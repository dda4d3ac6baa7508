/**
 * A signed-in user changes their e-mail address or password (the account
 * settings page, Mastodon's /auth/edit: Devise's update_with_password).
 * Both need the current password, checked (and counted in the sign-in
 * limit) before they are called: they take its proof (ConfirmedPassword).
 * A wrong one is the only problem the page reports, so the form tells
 * nothing about other accounts' addresses to someone who merely found a
 * signed-in browser.
 *
 * - The e-mail address changes only once the new one is confirmed (Devise's
 *   reconfirmable, actors/auth/email_confirmation.ts): the new address gets the
 *   link, the old one keeps working meanwhile and is told of the request
 *   (Mastodon's UserMailer#email_changed; requestEmailChange). The rules are
 *   those of sign-up: format, not taken, e-mail domain and canonical
 *   address blocks.
 * - A new password follows the sign-up rules (actors/accounts/accounts.ts). In one
 *   transaction it ends every other browser session (Mastodon's
 *   `clear_other_sessions`, which also destroys those sessions' access
 *   tokens) and revokes the user's access tokens, their Web Push
 *   subscriptions, unused authorization codes and pending two-factor
 *   sign-ins that passed the old password. Every app token is one a client
 *   got by signing in with the old password: all of them end, as at a
 *   password reset. The session that made the change stays signed in; its
 *   streaming-only web token is revoked too and replaced on its next page
 *   (rotated: actors/auth/web_tokens.ts). The user is mailed that the password
 *   changed (Devise's send_password_change_notification, which Mastodon
 *   turns on).
 */
import { and, eq, inArray, isNull, ne } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import {
  oauthAccessTokens,
  oauthAuthorizationCodes,
  signInChallenges,
  users,
  webPushSubscriptions,
  webSessions,
} from "../../db/schema/mod.ts";
import { checkNewPassword } from "../accounts/accounts.ts";
import { type EmailChange, requestEmailChange } from "./email_confirmation.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { sendNotice } from "../net/mailer.ts";
import { hashPassword } from "./passwords.ts";
import type { ConfirmedPassword } from "./sessions.ts";

export type { EmailChange };

/**
 * Asks for `email` to become the user's address: a confirmation link goes
 * to it, and it replaces the current one when followed; the current address
 * is told. The current address again cancels a pending change ("unchanged").
 * Throws ValidationError.
 */
export async function changeEmail(
  ctx: AppContext,
  confirmed: ConfirmedPassword,
  input: { email: string },
): Promise<EmailChange> {
  const email = input.email.trim();
  if (email === "") {
    const problems = new Problems();
    problems.add("email", "ERR_BLANK", "can't be blank");
    problems.throwIfAny();
  }
  return await requestEmailChange(ctx, confirmed.userId, email);
}

/**
 * Sets a new password (with its confirmation) once the current one was
 * confirmed, and signs out everything but `keepSessionId`. Throws
 * ValidationError.
 */
export async function changePassword(
  ctx: AppContext,
  confirmed: ConfirmedPassword,
  input: { keepSessionId: string; password: string; confirmation: string },
): Promise<void> {
  const { userId } = confirmed;
  const [user] = await ctx.database.db.select({ email: users.email }).from(users)
    .where(eq(users.id, userId)).limit(1);
  if (!user) throw new NotFoundError();
  const problems = new Problems();
  checkNewPassword(input.password, problems);
  if (problems.empty && input.password !== input.confirmation) {
    problems.add("password_confirmation", "ERR_CONFIRMATION", "doesn't match Password");
  }
  problems.throwIfAny();
  const passwordHash = await hashPassword(input.password);
  await ctx.database.db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, resetPasswordTokenHash: null })
      .where(eq(users.id, userId));
    await tx.delete(webSessions)
      .where(and(eq(webSessions.userId, userId), ne(webSessions.id, input.keepSessionId)));
    await tx.delete(signInChallenges).where(eq(signInChallenges.userId, userId));
    // The changer's own web token goes too: its session stays, and its next
    // page makes a new one (ensureWebToken), so a web token copied before
    // the change stops working with everything else.
    const revoked = await tx.update(oauthAccessTokens).set({ revokedAt: new Date() })
      .where(and(eq(oauthAccessTokens.userId, userId), isNull(oauthAccessTokens.revokedAt)))
      .returning({ id: oauthAccessTokens.id });
    if (revoked.length) {
      await tx.delete(webPushSubscriptions)
        .where(inArray(webPushSubscriptions.accessTokenId, revoked.map((r) => r.id)));
    }
    await tx.delete(oauthAuthorizationCodes).where(and(
      eq(oauthAuthorizationCodes.userId, userId),
      isNull(oauthAuthorizationCodes.usedAt),
    ));
  });
  const { config } = ctx;
  await sendNotice(ctx, user.email, "Your password has been changed", [
    `The password of your account on ${config.instance.title} (${config.domain}) was changed.`,
    "Every other browser and app was signed out.",
    "",
    "If this was not you, reset your password at",
    `${config.origin}/auth/password/new and tell the server's staff.`,
  ]);
}
