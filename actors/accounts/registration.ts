/**
 * Signing up through the API (`POST /api/v1/accounts`), as Mastodon's
 * AppSignUpService: validate everything at once (Mastodon's detail codes),
 * create the account, its user and an access token for the registering
 * application in one transaction (with `admin.sign_up` for the staff who
 * manage accounts), then mail the confirmation link when the server asks
 * for one.
 *
 * The blocks staff set are applied here too (access_blocks/sign_up.ts): a
 * blocked e-mail domain or canonical address is one more problem of the
 * form, and a block that only asks for approval leaves the account waiting.
 * Attempts that met an e-mail domain block are counted after the
 * transaction, whatever its outcome (the block's history).
 *
 * The new token carries the application's registered scopes, as Mastodon's
 * AppSignUpService issues it (`scopes: app.scopes`), not the narrower scopes
 * of the app token used to call the endpoint: the client needs read access
 * to use the account it just made.
 */
import { eq } from "drizzle-orm";
import ISO6391 from "iso-639-1";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { oauthApplications, users } from "../../db/schema/mod.ts";
import { createLocalAccount, validateNewAccount } from "./accounts.ts";
import { issueConfirmationToken, sendConfirmationMail } from "../auth/email_confirmation.ts";
import { Problems, ValidationError } from "../../model/errors.ts";
import { createAccessToken } from "../oauth/tokens.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { notifyStaffOfSignUp } from "../notifications/staff.ts";
import { getLogger } from "@logtape/logtape";
import { type EmailDomainFacts, lookUpEmailDomain } from "../access_blocks/email_mx.ts";
import { isValidEmail } from "../auth/email_address.ts";
import {
  checkSignUpEmail,
  type SignUpAccess,
  signUpNeedsApprovalFrom,
} from "../access_blocks/sign_up.ts";
import { recordBlockedAttempt } from "../access_blocks/email_domain_blocks.ts";

const logger = getLogger(["rookery", "registration"]);

/** Mastodon's limit on the sign-up reason (invite request text). */
export const REASON_MAX = 420;

/** What a sign-up form carries, as received (booleans already cast). */
export interface RegistrationInput {
  username?: string;
  email?: string;
  password?: string;
  agreement?: boolean;
  locale?: string;
  reason?: string;
  /** `YYYY-MM-DD` (or `DD.MM.YYYY`, which Mastodon's date parsing also takes). */
  dateOfBirth?: string;
  /** The application whose token made the request; none for the web sign-up page. */
  applicationId?: string;
  /** The client's address, for IP blocks and block history ("unknown" when not known). */
  ip?: string;
}

/** A successful registration: the plain token (shown once) and its row. */
export interface Registration {
  accessToken: string;
  token: { scopes: string[]; createdAt: Date };
  userId: string;
  accountId: string;
}

/**
 * A locale Mastodon could send mail in: an ISO 639-1 code, optionally with a
 * region or script (`pt-BR`, `zh_TW`, `sr-Latn`).
 */
export function isSupportedLocale(locale: string): boolean {
  const match = /^([a-z]{2})(?:[-_]([A-Za-z]{2}|[A-Za-z]{4}))?$/.exec(locale);
  return match != null && ISO6391.validate(match[1]);
}

/** Parses a date of birth; null when it is not a real calendar date. */
export function parseDateOfBirth(value: string): { y: number; m: number; d: number } | null {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  const dotted = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(value.trim());
  const [y, m, d] = iso
    ? [Number(iso[1]), Number(iso[2]), Number(iso[3])]
    : dotted
    ? [Number(dotted[3]), Number(dotted[2]), Number(dotted[1])]
    : [NaN, NaN, NaN];
  if (!Number.isInteger(y) || y < 1800) return null;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) {
    return null;
  }
  return { y, m, d };
}

/** Whether someone born on `dob` is at least `minAge` years old on `today` (UTC). */
export function isOldEnough(
  dob: { y: number; m: number; d: number },
  minAge: number,
  today = new Date(),
): boolean {
  const y = today.getUTCFullYear(), m = today.getUTCMonth() + 1, d = today.getUTCDate();
  let age = y - dob.y;
  if (m < dob.m || (m === dob.m && d < dob.d)) age--;
  return age >= minAge;
}

/** The sign-up fields beyond the account's own (agreement, locale, reason, age). */
function checkSignUpFields(ctx: AppContext, input: RegistrationInput, problems: Problems): void {
  if (input.agreement !== true) problems.add("agreement", "ERR_ACCEPTED", "must be accepted");
  if (input.locale != null && input.locale !== "" && !isSupportedLocale(input.locale)) {
    problems.add("locale", "ERR_INCLUSION", "is not included in the list");
  }
  const reason = input.reason?.trim() ?? "";
  if (ctx.config.registrations === "approval" && reason === "") {
    problems.add("reason", "ERR_BLANK", "can't be blank");
  } else if ([...reason].length > REASON_MAX) {
    problems.add("reason", "ERR_TOO_LONG", `is too long (maximum is ${REASON_MAX} characters)`);
  }
  const minAge = ctx.config.minAge;
  if (minAge != null) {
    const raw = input.dateOfBirth?.trim() ?? "";
    const dob = raw === "" ? null : parseDateOfBirth(raw);
    if (raw === "") problems.add("date_of_birth", "ERR_BLANK", "can't be blank");
    else if (!dob) problems.add("date_of_birth", "ERR_INVALID", "is invalid");
    else if (!isOldEnough(dob, minAge)) {
      problems.add("date_of_birth", "ERR_BELOW_LIMIT", "is below the age limit");
    }
  }
}

/**
 * Validates the whole form, account fields and blocks included, and throws
 * every problem together. `matched` collects the e-mail domain blocks met,
 * even when the form is refused.
 */
async function validateRegistration(
  ctx: AppContext,
  db: Executor,
  input: RegistrationInput,
  matched: string[],
  dns: EmailDomainFacts,
): Promise<SignUpAccess> {
  const problems = new Problems();
  try {
    await validateNewAccount(db, {
      username: input.username ?? "",
      email: input.email ?? "",
      password: input.password ?? "",
    });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    for (const [field, entries] of Object.entries(error.details)) {
      for (const entry of entries) problems.add(field, entry.error, entry.description);
    }
  }
  checkSignUpFields(ctx, input, problems);
  if (dns.unreachable) problems.add("email", "ERR_UNREACHABLE", "does not seem to exist");
  const access = await checkSignUpEmail(db, input.email ?? "", problems, dns.mxHosts);
  matched.push(...access.matchedDomainBlockIds);
  problems.throwIfAny();
  return access;
}

/** The date of birth as stored: always `YYYY-MM-DD`. */
function storedDateOfBirth(value: string | undefined): string | null {
  const dob = value ? parseDateOfBirth(value) : null;
  if (!dob) return null;
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(dob.y, 4)}-${pad(dob.m)}-${pad(dob.d)}`;
}

/** Counts a sign-up attempt in the history of the e-mail domain blocks it met. */
async function countBlockedAttempt(
  ctx: AppContext,
  blockIds: string[],
  ip: string | undefined,
): Promise<void> {
  if (!blockIds.length) return;
  try {
    await recordBlockedAttempt(ctx.database.db, blockIds, ip ?? "unknown");
  } catch (error) {
    // A counter: the sign-up's own answer matters more.
    logger.warn("Could not count a blocked sign-up attempt: {error}", { error });
  }
}

/** A sign-up through the web page: no application, no token; what the next page says. */
export interface WebRegistration {
  userId: string;
  accountId: string;
  /** Whether staff must approve the account before it can sign in. */
  pending: boolean;
  /** Whether a confirmation link was (to be) mailed. */
  needsConfirmation: boolean;
}

/**
 * Registers a local account for an application. Throws ValidationError
 * (with Mastodon's detail codes) when the form is refused; nothing is
 * written then. Registration modes other than `closed` are handled here
 * (`approval` leaves the account waiting); `closed` is refused by the route.
 */
export async function registerAccount(
  ctx: AppContext,
  input: RegistrationInput & { applicationId: string },
): Promise<Registration> {
  const result = await register(ctx, input);
  if (!result.token) throw new Error("An API sign-up issues a token");
  return {
    accessToken: result.token.token,
    token: { scopes: result.token.row.scopes, createdAt: result.token.row.createdAt },
    userId: result.userId,
    accountId: result.accountId,
  };
}

/**
 * Registers a local account from the web sign-up page (`/auth/sign_up`):
 * the same rules, blocks and mails as the API, without an application or a
 * token (Mastodon's RegistrationsController leaves created_by_application
 * empty too).
 */
export async function registerFromWeb(
  ctx: AppContext,
  input: Omit<RegistrationInput, "applicationId">,
): Promise<WebRegistration> {
  const result = await register(ctx, { ...input, applicationId: undefined });
  return {
    userId: result.userId,
    accountId: result.accountId,
    pending: !result.approved,
    needsConfirmation: ctx.config.requireEmailConfirmation,
  };
}

/** Both sign-ups: validate, write in one transaction, then mail. */
async function register(ctx: AppContext, input: RegistrationInput) {
  const { config, database } = ctx;
  const needsConfirmation = config.requireEmailConfirmation;
  const matchedBlocks: string[] = [];
  // Before the transaction (see signUpNeedsApprovalFrom).
  const ipNeedsApproval = await signUpNeedsApprovalFrom(ctx, input.ip ?? "unknown");
  // DNS is asked before the transaction too: it may take up to
  // EMAIL_DNS_TIMEOUT_MS. An address of the wrong shape is refused without it.
  const email = input.email ?? "";
  const dns = config.emailDomainCheck && isValidEmail(email)
    ? await lookUpEmailDomain(email, ctx.resolveEmailDns)
    : { unreachable: false, mxHosts: [] };
  const result = await database.db.transaction(async (tx) => {
    const access = await validateRegistration(ctx, tx, input, matchedBlocks, dns);
    let appScopes: string[] | null = null;
    if (input.applicationId != null) {
      const [app] = await tx.select({ scopes: oauthApplications.scopes }).from(oauthApplications)
        .where(eq(oauthApplications.id, input.applicationId)).limit(1);
      if (!app) throw new Error(`Application ${input.applicationId} vanished during sign-up`);
      appScopes = app.scopes;
    }
    const approved = config.registrations !== "approval" && !access.requiresApproval &&
      !ipNeedsApproval;
    const { account, user } = await createLocalAccount(tx, config.origin, {
      username: input.username!,
      email: input.email!,
      password: input.password!,
      confirmed: !needsConfirmation,
      approved,
      locale: input.locale || "en",
      reason: input.reason?.trim() || null,
    });
    const dateOfBirth = config.minAge != null ? storedDateOfBirth(input.dateOfBirth) : null;
    // The application is the sign-up's source (the admin `sources` dimension).
    await tx.update(users).set({
      createdByApplicationId: input.applicationId ?? null,
      ...(dateOfBirth ? { dateOfBirth } : {}),
    }).where(eq(users.id, user.id));
    const confirmationToken = needsConfirmation ? await issueConfirmationToken(tx, user.id) : null;
    const token = input.applicationId != null && appScopes
      ? await createAccessToken(tx, {
        applicationId: input.applicationId,
        userId: user.id,
        scopes: appScopes,
      })
      : null;
    // Key pairs are made by the relay, after commit: the answer does not
    // wait for RSA key generation.
    await recordDelivery(tx, "accountCreated", account.id);
    // Staff who manage accounts hear of every sign-up (pending ones included).
    await notifyStaffOfSignUp(tx, account.id);
    return { token, user, account, confirmationToken, approved };
  }).finally(() => countBlockedAttempt(ctx, matchedBlocks, input.ip));
  if (result.confirmationToken) {
    try {
      await sendConfirmationMail(ctx, {
        to: result.user.email,
        username: result.account.username,
        token: result.confirmationToken,
      });
    } catch (error) {
      // The account exists; the user can ask for the mail again.
      logger.error("Could not send the confirmation mail to {email}: {error}", {
        email: result.user.email,
        error,
      });
    }
  }
  return {
    token: result.token,
    userId: result.user.id,
    accountId: result.account.id,
    approved: result.approved,
  };
}
