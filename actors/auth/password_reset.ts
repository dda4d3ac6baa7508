/**
 * Password reset through e-mail, as Devise's recoverable does it for
 * Mastodon: a random token mailed as a link, kept only as its SHA-256 in
 * `users.reset_password_token_hash`, working for one hour and only once.
 * Asking for a reset never tells whether the address belongs to anyone (the
 * page's answer is always the same; the route limits how often it is asked).
 *
 * Setting the new password ends every browser session and revokes every
 * access token of the user, in the same transaction, as Mastodon's
 * `User#reset_password!` does: a reset usually follows a suspected
 * compromise, and a stolen session must not outlive it.
 */
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { oauthAccessTokens, users, webSessions } from "../../db/schema/mod.ts";
import { checkNewPassword } from "../accounts/accounts.ts";
import { isValidEmail } from "./email_address.ts";
import { Problems } from "../../model/errors.ts";
import { sendMail } from "../net/mailer.ts";
import { hashPassword } from "./passwords.ts";
import { hashSecret, randomSecret } from "../oauth/tokens.ts";

const logger = getLogger(["rookery", "mail", "password-reset"]);

/** How long a reset link works (Devise's reset_password_within as Mastodon sets it). */
export const RESET_VALID_MS = 60 * 60 * 1000;

/** The page a reset link opens; the token travels as `reset_password_token`. */
export const RESET_EDIT_PATH = "/auth/password/edit";

/** The link a reset mail carries. */
export function resetUrl(origin: string, token: string): string {
  return `${origin}${RESET_EDIT_PATH}?reset_password_token=${encodeURIComponent(token)}`;
}

/**
 * Mails a reset link when `email` is a local user's address; does nothing
 * otherwise. Returns nothing either way, so no caller can tell the two
 * apart. A new request replaces the previous token (its link stops working).
 */
export async function requestPasswordReset(ctx: AppContext, email: string): Promise<void> {
  const address = email.trim().toLowerCase();
  if (!isValidEmail(address)) return;
  const { config, database } = ctx;
  const token = randomSecret();
  const [user] = await database.db.update(users).set({
    resetPasswordTokenHash: await hashSecret(token),
    resetPasswordSentAt: new Date(),
  }).where(sql`lower(${users.email}) = ${address}`)
    .returning({ id: users.id, email: users.email });
  if (!user) return;
  const title = config.instance.title;
  try {
    await sendMail(ctx, {
      to: user.email,
      subject: `${title}: Reset password instructions for ${config.domain}`,
      text: [
        "Someone asked to change the password of your account on " + title + ".",
        "",
        "To choose a new password, follow this link:",
        "",
        resetUrl(config.origin, token),
        "",
        "The link works for one hour, once. If you did not ask for this, ignore this",
        "message: your password stays as it is.",
        "",
      ].join("\n"),
    });
  } catch (error) {
    // The answer is the same either way; the user can ask again.
    logger.error("Could not send a password reset mail: {error}", { error });
  }
}

/** Whether a reset token is live (for showing the form; the reset checks again). */
export async function resetTokenIsLive(
  ctx: AppContext,
  token: string,
  now = new Date(),
): Promise<boolean> {
  if (!token || token.length > 200) return false;
  const [row] = await ctx.database.db.select({ id: users.id }).from(users).where(and(
    eq(users.resetPasswordTokenHash, await hashSecret(token)),
    gt(users.resetPasswordSentAt, new Date(now.getTime() - RESET_VALID_MS)),
  )).limit(1);
  return row != null;
}

/** The outcome of setting a new password with a reset token. */
export type ResetResult =
  | { status: "done"; userId: string }
  | { status: "invalid" }
  | { status: "problems"; problems: Problems };

/**
 * Sets a new password with a reset token, if it is live: the token is used
 * up, sessions end and tokens are revoked, all in one transaction.
 */
export async function resetPasswordWithToken(
  ctx: AppContext,
  input: { token: string; password: string; confirmation: string },
  now = new Date(),
): Promise<ResetResult> {
  if (!input.token || input.token.length > 200) return { status: "invalid" };
  const problems = new Problems();
  const password = input.password;
  checkNewPassword(password, problems);
  if (problems.empty && password !== input.confirmation) {
    problems.add("password_confirmation", "ERR_CONFIRMATION", "doesn't match Password");
  }
  const tokenHash = await hashSecret(input.token);
  const passwordHash = problems.empty ? await hashPassword(password) : "";
  return await ctx.database.db.transaction(async (tx): Promise<ResetResult> => {
    const [user] = await tx.select({ id: users.id }).from(users).where(and(
      eq(users.resetPasswordTokenHash, tokenHash),
      gt(users.resetPasswordSentAt, new Date(now.getTime() - RESET_VALID_MS)),
    )).for("update").limit(1);
    if (!user) return { status: "invalid" };
    if (!problems.empty) return { status: "problems", problems };
    await tx.update(users).set({
      passwordHash,
      resetPasswordTokenHash: null,
      resetPasswordSentAt: null,
    }).where(eq(users.id, user.id));
    await tx.delete(webSessions).where(eq(webSessions.userId, user.id));
    await tx.update(oauthAccessTokens).set({ revokedAt: now })
      .where(and(eq(oauthAccessTokens.userId, user.id), isNull(oauthAccessTokens.revokedAt)));
    return { status: "done", userId: user.id };
  });
}
