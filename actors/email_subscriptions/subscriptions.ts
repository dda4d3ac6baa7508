/**
 * E-mail subscriptions (Mastodon 4.7 newsletters): a visitor asks for an
 * account's public posts by e-mail, confirms from the mail (double opt-in),
 * and can leave from any mail. Answers never tell whether an address was
 * already subscribed (no enumeration): a repeated request is accepted, and a
 * pending one gets its confirmation again at most once an hour.
 */
import { and, count, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, emailSubscriptions } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { EMAIL_MAX, isValidEmail } from "../auth/email_address.ts";
import { lookUpEmailDomain } from "../access_blocks/email_mx.ts";
import { emailDomainBlocksFor } from "../access_blocks/email_domain_blocks.ts";
import { subscribableAccount } from "./gates.ts";
import { sendSubscriptionConfirmation } from "./mails.ts";
import { verifyLinkToken } from "./tokens.ts";

const logger = getLogger(["rookery", "mail", "subscriptions"]);

/** How long a pending subscription waits before its confirmation is sent again. */
export const RESEND_AFTER_MS = 60 * 60 * 1000;
/** New unconfirmed subscriptions one account takes in an hour; more are refused. */
export const NEW_PER_ACCOUNT_HOUR = 100;
/** Confirmation mails one address gets in a day, whatever the accounts; more are not sent. */
export const MAILS_PER_ADDRESS_DAY = 3;

/** An account took too many new subscriptions this hour (the API answers 429). */
export class SubscriptionsThrottled extends Error {}

/** Whether the account took its hour's share of new, unconfirmed subscriptions. */
async function accountThrottled(db: Executor, accountId: string): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(emailSubscriptions).where(and(
    eq(emailSubscriptions.accountId, accountId),
    isNull(emailSubscriptions.confirmedAt),
    gt(emailSubscriptions.createdAt, sql`now() - interval '1 hour'`),
  ));
  return Number(row?.n ?? 0) >= NEW_PER_ACCOUNT_HOUR;
}

/**
 * Whether the address got its day's confirmation mails (the latest mail of
 * each subscription counts: a resend moves it): a form must not become a
 * way to flood someone's inbox through many accounts.
 */
async function addressMailedEnough(db: Executor, email: string): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(emailSubscriptions).where(and(
    eq(emailSubscriptions.email, email),
    gt(emailSubscriptions.confirmationSentAt, sql`now() - interval '1 day'`),
  ));
  return Number(row?.n ?? 0) >= MAILS_PER_ADDRESS_DAY;
}

/** Checks the address as sign-ups do (shape, length, blocked or unreachable domain). */
async function checkAddress(ctx: AppContext, email: string): Promise<void> {
  const problems = new Problems();
  if (email === "") problems.add("email", "ERR_BLANK", "can't be blank");
  else if (email.length > EMAIL_MAX) {
    problems.add("email", "ERR_TOO_LONG", `is too long (maximum is ${EMAIL_MAX} characters)`);
  } else if (!isValidEmail(email)) problems.add("email", "ERR_INVALID", "is invalid");
  problems.throwIfAny();
  const dns = ctx.config.emailDomainCheck
    ? await lookUpEmailDomain(email, ctx.resolveEmailDns)
    : { unreachable: false, mxHosts: [] };
  if (dns.unreachable) problems.add("email", "ERR_UNREACHABLE", "does not seem to exist");
  else if ((await emailDomainBlocksFor(ctx.database.db, email, dns.mxHosts)).length) {
    problems.add("email", "ERR_BLOCKED", "uses a disallowed e-mail provider");
  }
  problems.throwIfAny();
}

/**
 * Subscribes `rawEmail` to the account's posts: NotFoundError when the
 * account takes no subscriptions, ValidationError for a bad address.
 */
export async function subscribe(
  ctx: AppContext,
  accountId: string,
  rawEmail: string,
  locale = "en",
): Promise<void> {
  const db = ctx.database.db;
  const account = await subscribableAccount(db, ctx.config, accountId);
  if (!account) throw new NotFoundError();
  const email = rawEmail.trim().toLowerCase();
  await checkAddress(ctx, email);
  if (await accountThrottled(db, accountId)) throw new SubscriptionsThrottled();
  // Over its day's mails the address is still accepted (the answer tells nothing), unmailed.
  const mailable = !await addressMailedEnough(db, email);
  await db.insert(emailSubscriptions)
    .values({ id: newId(), accountId, email, locale: locale.slice(0, 16) })
    .onConflictDoNothing();
  // Claim the mail: only a pending row whose last mail is an hour old (or never sent).
  const now = new Date();
  const [claimed] = await db.update(emailSubscriptions).set({ confirmationSentAt: now })
    .where(and(
      eq(emailSubscriptions.accountId, accountId),
      eq(emailSubscriptions.email, email),
      isNull(emailSubscriptions.confirmedAt),
      or(
        isNull(emailSubscriptions.confirmationSentAt),
        lt(emailSubscriptions.confirmationSentAt, new Date(now.getTime() - RESEND_AFTER_MS)),
      ),
    ))
    .returning({ id: emailSubscriptions.id });
  if (!claimed) return;
  if (!mailable) {
    logger.info("Not mailing subscription {id}: its address got enough mails today.", {
      id: claimed.id,
    });
    return;
  }
  try {
    await sendSubscriptionConfirmation(ctx, account, { id: claimed.id, email });
  } catch (error) {
    logger.error("Could not send the confirmation of subscription {id}: {error}", {
      id: claimed.id,
      error,
    });
  }
}

/** What following a link did, with the account's username for the page. */
export interface LinkOutcome {
  username: string;
}

/** The subscription a token names, with its account's username (NotFoundError: dead link). */
async function subscriptionOf(ctx: AppContext, token: string, purpose: "confirm" | "unsubscribe") {
  const db = ctx.database.db;
  const id = await verifyLinkToken(db, token, purpose);
  if (!id) throw new NotFoundError();
  const [row] = await db.select({
    id: emailSubscriptions.id,
    accountId: emailSubscriptions.accountId,
    username: accounts.username,
  }).from(emailSubscriptions).innerJoin(accounts, eq(accounts.id, emailSubscriptions.accountId))
    .where(eq(emailSubscriptions.id, id)).limit(1);
  if (!row) throw new NotFoundError();
  // A confirmation link of an account that closed its subscriptions is dead;
  // leaving always works.
  if (purpose === "confirm" && !await subscribableAccount(db, ctx.config, row.accountId)) {
    throw new NotFoundError();
  }
  return row;
}

/** Checks a link before its page asks to press the button (NotFoundError when it is dead). */
export async function checkLink(
  ctx: AppContext,
  token: string,
  purpose: "confirm" | "unsubscribe",
): Promise<LinkOutcome> {
  const { username } = await subscriptionOf(ctx, token, purpose);
  return { username };
}

/** Confirms the subscription of a `confirm` token (again: no change). */
export async function confirmSubscription(ctx: AppContext, token: string): Promise<LinkOutcome> {
  const row = await subscriptionOf(ctx, token, "confirm");
  await ctx.database.db.update(emailSubscriptions).set({ confirmedAt: new Date() })
    .where(and(eq(emailSubscriptions.id, row.id), isNull(emailSubscriptions.confirmedAt)));
  return { username: row.username };
}

/** Deletes the subscription of an `unsubscribe` token (NotFoundError when already gone). */
export async function unsubscribe(ctx: AppContext, token: string): Promise<LinkOutcome> {
  const row = await subscriptionOf(ctx, token, "unsubscribe");
  await ctx.database.db.delete(emailSubscriptions).where(eq(emailSubscriptions.id, row.id));
  return { username: row.username };
}
