/**
 * A signed-in user changes their e-mail address or password (the account
 * settings page, Mastodon's /auth/edit: Devise's update_with_password).
 * Both need the current password; a wrong one is the only problem reported,
 * so the form tells nothing about other accounts' addresses to someone who
 * merely found a signed-in browser.
 *
 * - The e-mail address changes only once the new one is confirmed (Devise's
 *   reconfirmable, actors/email_confirmation.ts): the new address gets the
 *   link, the old one keeps working meanwhile and is told of the request
 *   (Mastodon's UserMailer#email_changed). The rules are those of sign-up:
 *   format, not taken, e-mail domain and canonical address blocks.
 * - A new password follows the sign-up rules (actors/accounts.ts). In one
 *   transaction it ends every other browser session (Mastodon's
 *   `clear_other_sessions`, which also destroys those sessions' access
 *   tokens) and revokes the user's access tokens, their Web Push
 *   subscriptions, unused authorization codes and pending two-factor
 *   sign-ins that passed the old password. Rookery has no web-app token per
 *   session, so every token is one a client got by signing in with the old
 *   password: all of them end, as at a password reset. The session that
 *   made the change stays signed in. The user is mailed that the password
 *   changed (Devise's send_password_change_notification, which Mastodon
 *   turns on).
 */
import { and, eq, inArray, isNull, ne } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../context.ts";
import {
  oauthAccessTokens,
  oauthAuthorizationCodes,
  signInChallenges,
  users,
  webPushSubscriptions,
  webSessions,
} from "../db/schema.ts";
import { checkNewPassword } from "./accounts.ts";
import { lookUpEmailDomain } from "./access_blocks/email_mx.ts";
import { changePendingEmail, requestConfirmation } from "./email_confirmation.ts";
import { isValidEmail } from "./email_address.ts";
import { NotFoundError, Problems } from "./errors.ts";
import { sendMail } from "./mailer.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";

const logger = getLogger(["rookery", "credentials"]);

/** Throws ValidationError (`current_password`) unless `password` is the user's. */
async function requireCurrentPassword(
  ctx: AppContext,
  userId: string,
  password: string,
): Promise<{ email: string }> {
  const [row] = await ctx.database.db.select({
    email: users.email,
    passwordHash: users.passwordHash,
  }).from(users).where(eq(users.id, userId)).limit(1);
  if (!row) throw new NotFoundError();
  if (password === "" || !(await verifyPassword(row.passwordHash, password))) {
    const problems = new Problems();
    problems.add(
      "current_password",
      password === "" ? "ERR_BLANK" : "ERR_INVALID",
      password === "" ? "can't be blank" : "is invalid",
    );
    problems.throwIfAny();
  }
  return { email: row.email };
}

/** Mails the user; failures are logged (the change is made either way). */
async function notify(ctx: AppContext, to: string, subject: string, lines: string[]) {
  const { config } = ctx;
  try {
    await sendMail(config, {
      to,
      subject: `${config.instance.title}: ${subject}`,
      text: [...lines, ""].join("\n"),
    });
  } catch (error) {
    logger.error("Could not mail {subject}: {error}", { subject, error });
  }
}

/** What an e-mail change did. */
export type EmailChange = "pending" | "unchanged";

/**
 * Asks for `email` to become the user's address: a confirmation link goes
 * to it, and it replaces the current one when followed. The current address
 * again cancels a pending change ("unchanged"). Throws ValidationError.
 */
export async function changeEmail(
  ctx: AppContext,
  userId: string,
  input: { email: string; currentPassword: string },
): Promise<EmailChange> {
  const email = input.email.trim();
  const { email: current } = await requireCurrentPassword(ctx, userId, input.currentPassword);
  if (email === "") {
    const problems = new Problems();
    problems.add("email", "ERR_BLANK", "can't be blank");
    problems.throwIfAny();
  }
  const { config, database } = ctx;
  // DNS before the transaction, as at sign-up (registration.ts).
  const dns = config.emailDomainCheck && isValidEmail(email)
    ? await lookUpEmailDomain(email, ctx.resolveEmailDns)
    : undefined;
  const pending = await database.db.transaction((tx) => changePendingEmail(tx, userId, email, dns));
  if (!pending) return "unchanged";
  await requestConfirmation(ctx, userId);
  await notify(ctx, current, "E-mail address change requested", [
    `Someone asked to change the e-mail address of your account on ${config.instance.title}`,
    `(${config.domain}) to ${email}. This address stays in use until the new one is`,
    "confirmed through the link mailed to it.",
    "",
    "If this was not you, someone may have access to your account: change your password",
    `at ${config.origin}/settings/account and tell the server's staff.`,
  ]);
  return "pending";
}

/**
 * Sets a new password (with its confirmation) after checking the current
 * one, and signs out everything but `keepSessionId`. Throws ValidationError.
 */
export async function changePassword(
  ctx: AppContext,
  input: {
    userId: string;
    keepSessionId: string;
    currentPassword: string;
    password: string;
    confirmation: string;
  },
): Promise<void> {
  const { email } = await requireCurrentPassword(ctx, input.userId, input.currentPassword);
  const problems = new Problems();
  checkNewPassword(input.password, problems);
  if (problems.empty && input.password !== input.confirmation) {
    problems.add("password_confirmation", "ERR_CONFIRMATION", "doesn't match Password");
  }
  problems.throwIfAny();
  const passwordHash = await hashPassword(input.password);
  const { userId } = input;
  await ctx.database.db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, resetPasswordTokenHash: null })
      .where(eq(users.id, userId));
    await tx.delete(webSessions)
      .where(and(eq(webSessions.userId, userId), ne(webSessions.id, input.keepSessionId)));
    await tx.delete(signInChallenges).where(eq(signInChallenges.userId, userId));
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
  await notify(ctx, email, "Your password has been changed", [
    `The password of your account on ${config.instance.title} (${config.domain}) was changed.`,
    "Every other browser and app was signed out.",
    "",
    "If this was not you, reset your password at",
    `${config.origin}/auth/password/new and tell the server's staff.`,
  ]);
}
