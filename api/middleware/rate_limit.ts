/**
 * Rate limits of the API spec, counted in fixed windows in the database so
 * they hold across every process that shares it.
 *
 * | bucket            | key            | limit             | applies to                                   |
 * |-------------------|----------------|-------------------|----------------------------------------------|
 * | account           | account id     | 300 / 5 min       | every request with a user token              |
 * | ip                | client IP (*)  | 300 / 5 min       | every request without a user token           |
 * | media             | account id     | 30 / 30 min       | POST /api/v1/media, POST /api/v2/media        |
 * | status deletions  | account id     | 30 / 30 min       | DELETE /api/v1/statuses/:id, POST …/unreblog  |
 * | sign-ups          | client IP (*)  | 5 / 30 min        | POST /api/v1/accounts                         |
 * | sign-in attempts  | client IP (*)  | 25 / 5 min        | POST /auth/sign_in, whatever the outcome      |
 * | sign-in account   | account/login  | 25 / 1 hour       | POST /auth/sign_in (counted by the route)     |
 * | web sign-ups      | client IP (*)  | 25 / 5 min        | POST /auth/sign_up, whatever the outcome      |
 * | password resets   | client IP (*)  | 25 / 5 min        | POST /auth/password                           |
 * | resets per e-mail | address        | 5 / 30 min        | POST /auth/password (counted by the route)    |
 * | confirmations     | client IP (*)  | 25 / 5 min        | POST /auth/confirmation, and the API's resend |
 * | confirm / e-mail  | address        | 5 / 30 min        | POST /auth/confirmation (counted by route)    |
 * | confirm / e-mail  | account id     | 5 / 30 min        | POST /api/v1/emails/confirmations             |
 *
 * (*) an IPv6 client counts with its whole /64 (`rateLimitSubject`).
 *
 * As in Mastodon (Rack::Attack), a request with a user token counts against
 * its account instead of its IP, so people sharing an address (a campus, a
 * carrier NAT) do not starve each other; app tokens and invalid tokens count
 * per IP. Windows are aligned on the Unix epoch, as Rack::Attack's are, so
 * every process agrees on them without coordination.
 *
 * Counting is rate_limit_counter.ts: exact at the limit across processes,
 * and far from it one write per lease of requests rather than per request.
 * The headers describe the bucket closest to its limit; past any limit the
 * answer is 429 with Mastodon's body and Retry-After (app.ts has browsers'
 * forms answered with a page instead: web/routes/too_many_requests.ts).
 */
import type { Context, MiddlewareHandler } from "hono";
import { sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { ApiEnv } from "../env.ts";
import { clientIp, rateLimitSubject } from "../client_ip.ts";
import type { Database } from "../../db/connection.ts";
import { setResponseHeaders } from "./headers.ts";
import {
  type Bucket,
  type BucketState,
  type RateLimit,
  type RateLimitCounter,
} from "./rate_limit_counter.ts";

export type { Bucket, BucketState, RateLimit } from "./rate_limit_counter.ts";
export { windowEnd } from "./rate_limit_counter.ts";

const logger = getLogger(["rookery", "http", "rate-limit"]);

/** The limits of the API spec's Limits table, and Mastodon's sign-in throttles. */
export const RATE_LIMITS = {
  account: { name: "account", limit: 300, periodSeconds: 5 * 60 },
  ip: { name: "ip", limit: 300, periodSeconds: 5 * 60 },
  media: { name: "media", limit: 30, periodSeconds: 30 * 60 },
  statusDeletions: { name: "status_deletions", limit: 30, periodSeconds: 30 * 60 },
  signUps: { name: "sign_ups", limit: 5, periodSeconds: 30 * 60 },
  /** Rack::Attack's throttle_sign_up_attempts/ip (the web form). */
  signUpAttemptsIp: { name: "sign_up_attempts_ip", limit: 25, periodSeconds: 5 * 60 },
  /** Rack::Attack's throttle_password_resets/ip. */
  passwordResetsIp: { name: "password_resets_ip", limit: 25, periodSeconds: 5 * 60 },
  /** Rack::Attack's throttle_password_resets/email. */
  passwordResetsEmail: { name: "password_resets_email", limit: 5, periodSeconds: 30 * 60 },
  /** Rack::Attack's throttle_email_confirmations/ip. */
  emailConfirmationsIp: { name: "email_confirmations_ip", limit: 25, periodSeconds: 5 * 60 },
  /** Rack::Attack's throttle_email_confirmations/email. */
  emailConfirmationsEmail: { name: "email_confirmations_email", limit: 5, periodSeconds: 30 * 60 },
  /** Rack::Attack's throttle_login_attempts/ip. */
  signInIp: { name: "sign_in_ip", limit: 25, periodSeconds: 5 * 60 },
  /** Rack::Attack's throttle_login_attempts/email. */
  signInAccount: { name: "sign_in_account", limit: 25, periodSeconds: 60 * 60 },
  /** E-mail subscriptions asked from one address (Mastodon 4.7: each may send a mail). */
  emailSubscriptionsIp: { name: "email_subscriptions_ip", limit: 10, periodSeconds: 30 * 60 },
} as const satisfies Record<string, RateLimit>;

const MEDIA_PATH = /^\/api\/v[12]\/media\/?$/;
const STATUS_DELETE_PATH = /^\/api\/v1\/statuses\/[^/]+\/?$/;
const UNREBLOG_PATH = /^\/api\/v1\/statuses\/[^/]+\/unreblog\/?$/;
const SIGN_UP_PATH = /^\/api\/v1\/accounts\/?$/;
const SIGN_IN_PATH = /^\/auth\/sign_in\/?$/;
const WEB_SIGN_UP_PATH = /^\/auth\/sign_up\/?$/;
const PASSWORD_RESET_PATH = /^\/auth\/password\/?$/;
const CONFIRMATION_RESEND_PATH = /^\/auth\/confirmation\/?$/;
const API_CONFIRMATION_RESEND_PATH = /^\/api\/v1\/emails\/confirmations\/?$/;
/** The API's route and the profile page's form (web/routes/public/email_subscriptions.ts). */
const EMAIL_SUBSCRIPTION_PATH = /^\/(?:api\/v1\/accounts\/[^/]+|@[^/]+)\/email_subscriptions\/?$/;

/**
 * Whether a path is rate limited at all (the API, OAuth and sign-in, and the
 * profile page's subscription form; not federation or other pages).
 */
export function isRateLimitedPath(path: string): boolean {
  return path.startsWith("/api/") || path.startsWith("/oauth/") || path.startsWith("/auth/") ||
    EMAIL_SUBSCRIPTION_PATH.test(path);
}

/** The buckets one request counts against. */
export function bucketsFor(
  method: string,
  path: string,
  accountId: string | null,
  ip: string,
): Bucket[] {
  const buckets: Bucket[] = [];
  if (accountId) {
    buckets.push({ rule: RATE_LIMITS.account, subject: accountId });
    if (method === "POST" && MEDIA_PATH.test(path)) {
      buckets.push({ rule: RATE_LIMITS.media, subject: accountId });
    }
    if (
      (method === "DELETE" && STATUS_DELETE_PATH.test(path)) ||
      (method === "POST" && UNREBLOG_PATH.test(path))
    ) {
      buckets.push({ rule: RATE_LIMITS.statusDeletions, subject: accountId });
    }
    // Rack::Attack's throttle_email_confirmations/email keys the API's resends
    // by user; an account id never collides with the addresses of the web
    // form's count in the same bucket (they hold an "@").
    if (method === "POST" && API_CONFIRMATION_RESEND_PATH.test(path)) {
      buckets.push({ rule: RATE_LIMITS.emailConfirmationsEmail, subject: accountId });
    }
  } else {
    buckets.push({ rule: RATE_LIMITS.ip, subject: ip });
  }
  if (method === "POST" && SIGN_UP_PATH.test(path)) {
    buckets.push({ rule: RATE_LIMITS.signUps, subject: ip });
  }
  // Every attempt counts, failed or not, as Rack::Attack counts them.
  if (method === "POST" && SIGN_IN_PATH.test(path)) {
    buckets.push({ rule: RATE_LIMITS.signInIp, subject: ip });
  }
  if (method === "POST" && WEB_SIGN_UP_PATH.test(path)) {
    buckets.push({ rule: RATE_LIMITS.signUpAttemptsIp, subject: ip });
  }
  if (method === "POST" && PASSWORD_RESET_PATH.test(path)) {
    buckets.push({ rule: RATE_LIMITS.passwordResetsIp, subject: ip });
  }
  if (
    method === "POST" &&
    (CONFIRMATION_RESEND_PATH.test(path) || API_CONFIRMATION_RESEND_PATH.test(path))
  ) {
    buckets.push({ rule: RATE_LIMITS.emailConfirmationsIp, subject: ip });
  }
  if (method === "POST" && EMAIL_SUBSCRIPTION_PATH.test(path)) {
    buckets.push({ rule: RATE_LIMITS.emailSubscriptionsIp, subject: ip });
  }
  return buckets;
}

/** What the limits read: the process core's counter. */
export interface RateLimitsHolder {
  readonly core: { readonly rateLimits: RateLimitCounter };
}

/** Counts one request in every bucket and returns their states. */
export async function countRequest(
  app: RateLimitsHolder,
  buckets: Bucket[],
  now = new Date(),
): Promise<BucketState[]> {
  if (buckets.length === 0) return [];
  return await app.core.rateLimits.count(buckets, now);
}

/** The bucket closest to its limit (fewest requests left). */
export function tightest(states: BucketState[]): BucketState {
  return states.reduce((a, b) => (b.rule.limit - b.count < a.rule.limit - a.count ? b : a));
}

/** The X-RateLimit-* headers for a bucket. */
export function rateLimitHeaders(state: BucketState): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(state.rule.limit),
    "X-RateLimit-Remaining": String(Math.max(0, state.rule.limit - state.count)),
    "X-RateLimit-Reset": state.resetAt.toISOString(),
  };
}

/** The headers of a 429: the X-RateLimit-* ones and Retry-After, in seconds. */
export function refusalHeaders(state: BucketState, now: Date): Record<string, string> {
  const seconds = Math.max(1, Math.ceil((state.resetAt.getTime() - now.getTime()) / 1000));
  return { ...rateLimitHeaders(state), "Retry-After": String(seconds) };
}

/** Mastodon's words for a 429 (errors.429). */
export const TOO_MANY_REQUESTS = "Too many requests";

/** Whether a request comes from a browser page (a form) rather than a client app. */
export function wantsHtml(c: Context<ApiEnv>): boolean {
  return /\btext\/html\b/.test(c.req.header("accept") ?? "");
}

/** How a request past its limit is answered. */
export type Refusal = (c: Context<ApiEnv>, state: BucketState, now: Date) => Response;

/** A 429 in Mastodon's shape: `{"error":"Too many requests"}` and the headers. */
export function tooManyRequestsJson(c: Context<ApiEnv>, state: BucketState, now: Date): Response {
  return c.json({ error: TOO_MANY_REQUESTS }, 429, refusalHeaders(state, now));
}

const PURGE_INTERVAL_MS = 10 * 60 * 1000;

/** Deletes finished windows now and then, without holding up the request. */
function maybePurge(database: Database, counter: RateLimitCounter, now: number): void {
  const last = counter.lastPurge;
  if (last === null) {
    counter.lastPurge = now;
    return;
  }
  if (now - last < PURGE_INTERVAL_MS) return;
  counter.lastPurge = now;
  database.rows(sql`DELETE FROM rate_limit_counters WHERE reset_at < now()`).catch((error) =>
    logger.warn("Could not purge rate limit counters: {error}", { error })
  );
}

/**
 * The middleware. Runs after authentication (it needs `c.var.user`); does
 * nothing when `config.rateLimits` is off or outside the API and OAuth paths.
 * `refuse` answers a request past a limit (default: the JSON 429).
 */
export function rateLimit(refuse: Refusal = tooManyRequestsJson): MiddlewareHandler<ApiEnv> {
  return async (c: Context<ApiEnv>, next) => {
    const ctx = c.get("ctx");
    const { config, database } = ctx;
    if (!config.rateLimits || !isRateLimitedPath(c.req.path) || c.req.method === "OPTIONS") {
      return await next();
    }
    const user = c.get("user") ?? null;
    const buckets = bucketsFor(
      c.req.method,
      c.req.path,
      user?.accountId ?? null,
      rateLimitSubject(clientIp(c)),
    );
    const now = ctx.core.rateLimits.clock();
    let states: BucketState[];
    try {
      states = await countRequest(ctx, buckets, now);
    } catch (error) {
      // Fail open: a counter hiccup must not take the whole API down with it.
      logger.warn("Could not count request for rate limits: {error}", { error });
      return await next();
    }
    maybePurge(database, ctx.core.rateLimits, now.getTime());
    const exceeded = states.filter((s) => s.count > s.rule.limit);
    if (exceeded.length) return refuse(c, tightest(exceeded), now);
    await next();
    setResponseHeaders(c, rateLimitHeaders(tightest(states)));
  };
}
