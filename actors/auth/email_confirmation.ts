/**
 * E-mail confirmation: a random token mailed as a link, kept only as its
 * SHA-256 in `users.confirmation_token_hash`, valid for two days (Devise's
 * `confirm_within` as Mastodon sets it). Following the link confirms the
 * address; following it again says so (idempotent). A new address asked for
 * through the API waits in `users.unconfirmed_email` until its link is
 * followed, as Devise's reconfirmable does; the current address is told
 * (requestEmailChange).
 */
import { and, eq, ne, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { accounts, users } from "../../db/schema/mod.ts";
import { isValidEmail } from "./email_address.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { sendMail, sendNotice } from "../net/mailer.ts";
import { hashSecret, randomSecret } from "../oauth/tokens.ts";
import { checkSignUpEmail } from "../access_blocks/sign_up.ts";
import { type EmailDomainFacts, lookUpEmailDomain } from "../access_blocks/email_mx.ts";

const logger = getLogger(["rookery", "mail", "confirmation"]);

/** How long a confirmation link works. */
export const CONFIRMATION_VALID_MS = 2 * 24 * 60 * 60 * 1000;

/** Path of the confirmation page; the token travels as `confirmation_token`. */
export const CONFIRMATION_PATH = "/auth/confirmation";

/** The outcome of following a confirmation link. */
export type ConfirmationResult =
  | { status: "confirmed"; username: string; email: string }
  | { status: "already_confirmed"; username: string }
  | { status: "expired" }
  | { status: "invalid" }
  | { status: "email_taken" };

/**
 * Makes a new token for a user (replacing any earlier one, whose link stops
 * working) and returns it in plain text, to be mailed once.
 */
export async function issueConfirmationToken(db: Executor, userId: string): Promise<string> {
  const token = randomSecret();
  await db.update(users).set({
    confirmationTokenHash: await hashSecret(token),
    confirmationSentAt: new Date(),
  }).where(eq(users.id, userId));
  return token;
}

/** The link a confirmation mail carries. */
export function confirmationUrl(origin: string, token: string): string {
  return `${origin}${CONFIRMATION_PATH}?confirmation_token=${encodeURIComponent(token)}`;
}

/**
 * Mails the confirmation link for `token` to `to`; `change` words it for a
 * new address of an existing account rather than for a sign-up.
 */
export async function sendConfirmationMail(
  ctx: Pick<AppContext, "config" | "core">,
  input: { to: string; username: string; token: string; change?: boolean },
): Promise<void> {
  const { config } = ctx;
  const link = confirmationUrl(config.origin, input.token);
  const title = config.instance.title;
  await sendMail(ctx, {
    to: input.to,
    subject: `${title}: Confirmation instructions for ${config.domain}`,
    text: [
      input.change
        ? `@${input.username} on ${title} asked to use this e-mail address.`
        : `Welcome to ${title}, @${input.username}!`,
      "",
      "To confirm your e-mail address, follow this link:",
      "",
      link,
      "",
      "The link works for two days. If you did not ask for this, ignore this message.",
      "",
    ].join("\n"),
  });
}

/**
 * Issues a token and mails it, to the pending new address when there is one.
 * Mail failures are logged, not thrown: the account exists either way, and
 * the user can ask for the mail again.
 */
export async function requestConfirmation(ctx: AppContext, userId: string): Promise<boolean> {
  const db = ctx.database.db;
  const [row] = await db.select({
    email: users.email,
    unconfirmedEmail: users.unconfirmedEmail,
    username: accounts.username,
  }).from(users).innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(eq(users.id, userId)).limit(1);
  if (!row) return false;
  const token = await issueConfirmationToken(db, userId);
  try {
    await sendConfirmationMail(ctx, {
      to: row.unconfirmedEmail ?? row.email,
      username: row.username,
      token,
      change: row.unconfirmedEmail != null,
    });
    return true;
  } catch (error) {
    logger.error("Could not send the confirmation mail of user {userId}: {error}", {
      userId,
      error,
    });
    return false;
  }
}

/** What an e-mail change did: a new address waits for its link, or the current one stays. */
export type EmailChange = "pending" | "unchanged";

/**
 * The one way an address comes to wait for confirmation: the account
 * settings (after the current password) and `POST /api/v1/emails/confirmations`
 * (for the app an unconfirmed account signed up with) both come here. The
 * rules are sign-up's (changePendingEmail below); the new address gets the
 * link, and whenever the address waiting changes the current one is told
 * (Mastodon's UserMailer#email_changed), so a change its owner did not ask
 * for is not silent. The current address again cancels a pending change
 * ("unchanged"). Throws ValidationError.
 */
export async function requestEmailChange(
  ctx: AppContext,
  userId: string,
  email: string,
): Promise<EmailChange> {
  // DNS before the transaction, as at sign-up (registration.ts).
  const dns = ctx.config.emailDomainCheck && isValidEmail(email)
    ? await lookUpEmailDomain(email, ctx.resolveEmailDns)
    : undefined;
  const change = await ctx.database.db.transaction((tx) =>
    changePendingEmail(tx, userId, email, dns)
  );
  if (!change.pending) return "unchanged";
  await requestConfirmation(ctx, userId);
  if (change.newAddress) await tellCurrentAddress(ctx, change.current, email);
  return "pending";
}

/** The mail to the current address when another one is asked for. */
async function tellCurrentAddress(ctx: AppContext, current: string, asked: string) {
  const { config } = ctx;
  await sendNotice(ctx, current, "E-mail address change requested", [
    `Someone asked to change the e-mail address of your account on ${config.instance.title}`,
    `(${config.domain}) to ${asked}. This address stays in use until the new one is`,
    "confirmed through the link mailed to it.",
    "",
    "If this was not you, someone may have access to your account: change your password",
    `at ${config.origin}/settings/account and tell the server's staff.`,
  ]);
}

/**
 * Sets the address waiting for confirmation, under a lock of the user's row.
 * Throws ValidationError when it is malformed, belongs to someone else, or
 * meets an e-mail block that refuses sign-ups (access_blocks/sign_up.ts; a
 * block that only asks for approval does not stop an existing account, as
 * Mastodon's BlacklistedEmailValidator ignores it), or its domain takes no
 * mail (`dns.unreachable`). `dns` is what the caller's DNS check found
 * (access_blocks/email_mx.ts), before its transaction. `pending` is false
 * when `email` is the current address (a pending change is dropped);
 * `newAddress` when the address waiting is not the one that waited before.
 */
async function changePendingEmail(
  tx: Executor,
  userId: string,
  email: string,
  dns: EmailDomainFacts = { unreachable: false, mxHosts: [] },
): Promise<{ pending: boolean; newAddress: boolean; current: string }> {
  const [user] = await tx.select({ email: users.email, pending: users.unconfirmedEmail })
    .from(users).where(eq(users.id, userId)).limit(1).for("update");
  if (!user) throw new NotFoundError();
  const problems = new Problems();
  if (!isValidEmail(email)) {
    problems.add("email", "ERR_INVALID", "is invalid");
  } else if (dns.unreachable) {
    problems.add("email", "ERR_UNREACHABLE", "does not seem to exist");
  } else {
    const [taken] = await tx.select({ id: users.id }).from(users).where(and(
      ne(users.id, userId),
      sql`(lower(${users.email}) = ${email.toLowerCase()} OR lower(${users.unconfirmedEmail}) = ${email.toLowerCase()})`,
    )).limit(1);
    if (taken) problems.add("email", "ERR_TAKEN", "is already taken");
  }
  const unchanged = user.email.toLowerCase() === email.toLowerCase();
  if (problems.empty && !unchanged) await checkSignUpEmail(tx, email, problems, dns.mxHosts);
  problems.throwIfAny();
  await tx.update(users).set({ unconfirmedEmail: unchanged ? null : email })
    .where(eq(users.id, userId));
  return {
    pending: !unchanged,
    newAddress: !unchanged && user.pending?.toLowerCase() !== email.toLowerCase(),
    current: user.email,
  };
}

/**
 * Mails a new confirmation link to whoever awaits confirmation of `email`
 * (a sign-up not yet confirmed, or a pending new address), as Devise's
 * paranoid ConfirmationsController: nothing tells the caller whether the
 * address belongs to anyone. The route limits how often it is asked.
 */
export async function resendConfirmationTo(ctx: AppContext, email: string): Promise<void> {
  const address = email.trim().toLowerCase();
  if (!isValidEmail(address)) return;
  const db = ctx.database.db;
  // A pending new address first, as Devise's reconfirmable looks it up.
  const [row] = await db.select({
    id: users.id,
    confirmedAt: users.confirmedAt,
    unconfirmedEmail: users.unconfirmedEmail,
  }).from(users).where(sql`(lower(${users.unconfirmedEmail}) = ${address}
      OR lower(${users.email}) = ${address})`)
    .orderBy(sql`lower(${users.unconfirmedEmail}) = ${address} DESC NULLS LAST`).limit(1);
  if (!row || (row.confirmedAt && !row.unconfirmedEmail)) return;
  await requestConfirmation(ctx, row.id);
}

/** Confirms the address behind a token (the link in the mail). */
export async function confirmEmail(db: Executor, token: string): Promise<ConfirmationResult> {
  if (token === "" || token.length > 200) return { status: "invalid" };
  const hash = await hashSecret(token);
  return await db.transaction(async (tx) => {
    const [row] = await tx.select({
      id: users.id,
      email: users.email,
      unconfirmedEmail: users.unconfirmedEmail,
      confirmedAt: users.confirmedAt,
      sentAt: users.confirmationSentAt,
      username: accounts.username,
    }).from(users).innerJoin(accounts, eq(accounts.id, users.accountId))
      .where(eq(users.confirmationTokenHash, hash)).limit(1).for("update");
    if (!row) return { status: "invalid" } as const;
    if (row.confirmedAt && !row.unconfirmedEmail) {
      return { status: "already_confirmed", username: row.username } as const;
    }
    const sentAt = row.sentAt?.getTime() ?? 0;
    if (Date.now() - sentAt > CONFIRMATION_VALID_MS) return { status: "expired" } as const;
    const email = row.unconfirmedEmail ?? row.email;
    if (row.unconfirmedEmail) {
      const [taken] = await tx.select({ id: users.id }).from(users).where(and(
        ne(users.id, row.id),
        sql`lower(${users.email}) = ${email.toLowerCase()}`,
      )).limit(1);
      if (taken) return { status: "email_taken" } as const;
    }
    await tx.update(users).set({
      email,
      unconfirmedEmail: null,
      confirmedAt: row.confirmedAt ?? new Date(),
    }).where(eq(users.id, row.id));
    return { status: "confirmed", username: row.username, email } as const;
  });
}
