/**
 * What every page with forms shares (the staff pages under /admin and the
 * settings pages): strict headers, sending a JSX page, and the gate's three
 * checks — a live browser session of the OAuth sign-in (a user suspended or
 * disabled since signing in loses it), the way back through the sign-in
 * form, and the session's form token on every POST so another site cannot
 * make the browser act; and the limit on writes (limitPageWrite).
 * admin_web/session.ts adds a role permission; settings/session.ts and the
 * web app (app/session.ts) let any signed-in user in, through signedInGate.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getLogger } from "@logtape/logtape";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../api/env.ts";
import { params } from "../../api/params.ts";
import { constantTimeEqual } from "../../actors/oauth/oauth.ts";
import { loginRefusal, type WebSession } from "../../actors/auth/sessions.ts";
import { TWO_FACTOR_SETUP_PATH, twoFactorSetupDue } from "../../actors/auth/two_factor_policy.ts";
import { currentSession, endSession } from "./auth/authorize_request.ts";
import { sendHtmlPage, setPageHeaders } from "./page_response.ts";
import { clientIp, rateLimitSubject } from "../../api/client_ip.ts";
import {
  type Bucket,
  type BucketState,
  countRequest,
  RATE_LIMITS,
  type RateLimit,
  rateLimitHeaders,
} from "../../api/middleware/rate_limit.ts";
import { tooManyRequests } from "./too_many_requests.ts";

const logger = getLogger(["rookery", "http", "rate-limit"]);

/** Never cached, never framed, no script, forms to us only (page_response.ts). */
export function setFormPageHeaders(c: Context<ApiEnv>): void {
  setPageHeaders(c, "form");
}

/** Sends a JSX page (Hono escapes every value) with {@link setFormPageHeaders}. */
export async function sendFormPage(
  c: Context<ApiEnv>,
  page: unknown,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  return await sendHtmlPage(c, "form", page, status);
}

/** The browser's session, or null (and the session ended) when its user may no longer sign in. */
export async function liveSession(c: Context<ApiEnv>): Promise<WebSession | null> {
  const session = await currentSession(c);
  if (session && loginRefusal(session.user.state)) {
    await endSession(c, session);
    return null;
  }
  return session;
}

/**
 * Sends a user whose role requires two-factor sign-in, and who has not set
 * it up, to its set-up page (actors/auth/two_factor_policy.ts); null for
 * everyone else, and on the set-up pages themselves.
 */
export async function twoFactorSetupRedirect(
  c: Context<ApiEnv>,
  session: WebSession,
): Promise<Response | null> {
  if (c.req.path.startsWith(TWO_FACTOR_SETUP_PATH)) return null;
  if (!await twoFactorSetupDue(c.get("ctx").database.db, session.user.userId)) return null;
  setFormPageHeaders(c);
  return c.redirect(TWO_FACTOR_SETUP_PATH, 303);
}

/** Whether the request may be sent to the sign-in form (a GET), rather than refused. */
export function maySignInFirst(c: Context<ApiEnv>): boolean {
  return c.req.method === "GET" || c.req.method === "HEAD";
}

/** To the sign-in form, coming back to this page afterwards. */
export function redirectToSignIn(c: Context<ApiEnv>): Response {
  const url = new URL(c.req.url);
  const back = encodeURIComponent(url.pathname + url.search);
  return c.redirect(`/auth/sign_in?redirect_to=${back}`, 303);
}

/**
 * Writes on these pages are limited as the API's requests are
 * (middleware/rate_limit.ts): a signed-in browser's count in its account's
 * bucket, the one its tokens' API calls count in (300 per 5 minutes), any
 * other in its address's. Counted before the form token is checked, so
 * refused posts count too; past the limit, the 429 page. Reads are not
 * counted. Fails open, as the middleware does. `extra`: a specific bucket
 * the API route of the same write also counts in (media uploads, deletions),
 * counted for a signed-in session only, so a page is no way around it.
 */
export async function limitPageWrite(
  c: Context<ApiEnv>,
  session: WebSession | null,
  extra?: RateLimit,
): Promise<Response | null> {
  const { config } = c.get("ctx");
  if (!config.rateLimits || c.req.method === "GET" || c.req.method === "HEAD") return null;
  const buckets: Bucket[] = session
    ? [{ rule: RATE_LIMITS.account, subject: session.user.accountId }]
    : [{ rule: RATE_LIMITS.ip, subject: rateLimitSubject(clientIp(c)) }];
  if (session && extra) buckets.push({ rule: extra, subject: session.user.accountId });
  const now = c.get("ctx").core.rateLimits.clock();
  let states: BucketState[];
  try {
    states = await countRequest(c.get("ctx"), buckets, now);
  } catch (error) {
    logger.warn("Could not count a page write: {error}", { error });
    return null;
  }
  const over = states.find((state) => state.count > state.rule.limit);
  if (over) return tooManyRequests(c, over, now);
  for (const [name, value] of Object.entries(rateLimitHeaders(states[0]))) c.header(name, value);
  return null;
}

/** A POST carries the session's form token; other methods need none. */
export async function formTokenValid(c: Context<ApiEnv>, session: WebSession): Promise<boolean> {
  if (c.req.method !== "POST") return true;
  let presented: unknown;
  try {
    presented = (await params(c)).authenticity_token;
  } catch {
    presented = undefined;
  }
  return typeof presented === "string" && constantTimeEqual(presented, session.csrfToken);
}

/** What a page may refuse before its body is read (the form token is in the body). */
export type BeforeBody = (c: Context<ApiEnv>, session: WebSession) => Promise<Response | null>;

/** How a gate of signed-in pages differs: where it keeps the session, and its checks. */
export interface GateOptions {
  /** The request variable the pages behind it read the session from. */
  variable: "settingsSession" | "appSession";
  /** Runs once the user is known and before the body is read (an upload's size). */
  beforeBody?: BeforeBody;
  /** A specific bucket the write also counts in (limitPageWrite). */
  extraLimit?: RateLimit;
}

/**
 * The gate of the pages of a signed-in user (settings, the web app): a live
 * session, the limit on writes, the sign-in form for a visitor's GET and a
 * 403 for a visitor's POST, the second-factor set-up a role requires, and
 * the form token on every POST.
 */
export function signedInGate(options: GateOptions): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (c.get(options.variable)) return await next();
    const session = await liveSession(c);
    const limited = await limitPageWrite(c, session, options.extraLimit);
    if (limited) return limited;
    if (!session) {
      if (maySignInFirst(c)) return redirectToSignIn(c);
      setFormPageHeaders(c);
      return c.text("Sign in first.", 403);
    }
    const setup = await twoFactorSetupRedirect(c, session);
    if (setup) return setup;
    const refused = await options.beforeBody?.(c, session);
    if (refused) return refused;
    if (!(await formTokenValid(c, session))) {
      setFormPageHeaders(c);
      return c.text("The form's token is missing or wrong: reload the page and try again.", 403);
    }
    c.set(options.variable, session);
    await next();
  };
}
