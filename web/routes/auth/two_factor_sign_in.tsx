/**
 * The second step of a sign-in when two-factor sign-in is on. The password
 * step (sign_in.ts, both the OAuth and the plain form) calls
 * `startSecondFactor` instead of making a session: it keeps a challenge
 * bound to this browser (an HttpOnly cookie, its hash in the database) and
 * goes to `/auth/sign_in/otp`. Only a right code there (or a recovery
 * code) makes the session; there is no other way to one. The challenge
 * lives 5 minutes and takes 5 wrong codes (actors/auth/two_factor.ts).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { ApiEnv } from "../../../api/env.ts";
import { clientIp } from "../../../api/client_ip.ts";
import {
  answerChallenge,
  CHALLENGE_VALID_MS,
  createChallenge,
  findChallenge,
} from "../../../actors/auth/two_factor.ts";
import { createWebSession, deleteWebSession } from "../../../actors/auth/sessions.ts";
import { OtpChallengePage } from "../../pages/auth/two_factor.tsx";
import { MessagePage } from "../../pages/auth/layout.tsx";
import { currentSession, setSessionCookie, signInCsrfToken } from "./authorize_request.ts";
import { formField, formParams, formTokenMatches, sendAccountPage } from "./page.ts";

/** The cookie that binds a pending sign-in to the browser. */
export const CHALLENGE_COOKIE = "_rookery_otp";
export const WRONG_CODE = "Invalid two-factor code.";
export const CHALLENGE_GONE =
  "This sign-in has expired or had too many wrong codes. Please sign in again.";

function cookieOptions(c: Context<ApiEnv>) {
  return {
    path: "/auth/",
    httpOnly: true,
    sameSite: "Lax" as const,
    secure: c.get("ctx").config.origin.startsWith("https:"),
  };
}

/** After a right password of a user with two-factor on: the code step instead of a session. */
export async function startSecondFactor(
  c: Context<ApiEnv>,
  userId: string,
  destination: string,
): Promise<Response> {
  const secret = await createChallenge(
    c.get("ctx").database.db,
    userId,
    destination,
    c.req.header("user-agent") ?? null,
  );
  setCookie(c, CHALLENGE_COOKIE, secret, {
    ...cookieOptions(c),
    maxAge: Math.floor(CHALLENGE_VALID_MS / 1000),
  });
  c.header("Cache-Control", "no-store");
  return c.redirect("/auth/sign_in/otp", 303);
}

function gone(c: Context<ApiEnv>) {
  deleteCookie(c, CHALLENGE_COOKIE, cookieOptions(c));
  return sendAccountPage(
    c,
    <MessagePage
      title="Sign in again"
      instanceTitle={c.get("ctx").config.instance.title}
      text={CHALLENGE_GONE}
      alert
      links={[{ href: "/auth/sign_in", label: "Sign in" }]}
    />,
    403,
  );
}

function showForm(c: Context<ApiEnv>, error?: string, status: 200 | 401 | 403 = 200) {
  return sendAccountPage(
    c,
    <OtpChallengePage
      instanceTitle={c.get("ctx").config.instance.title}
      csrfToken={signInCsrfToken(c)}
      error={error}
    />,
    status,
  );
}

export function twoFactorSignInRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/auth/sign_in/otp", async (c) => {
    const db = c.get("ctx").database.db;
    if (!await findChallenge(db, getCookie(c, CHALLENGE_COOKIE))) return await gone(c);
    return await showForm(c);
  });

  app.post("/auth/sign_in/otp", async (c) => {
    const p = await formParams(c);
    if (!p || !formTokenMatches(c, p)) {
      return await showForm(c, "This form expired. Please try again.", 403);
    }
    const db = c.get("ctx").database.db;
    const answer = await answerChallenge(
      db,
      getCookie(c, CHALLENGE_COOKIE),
      formField(p, "otp_attempt", 100),
    );
    if (answer.status === "gone") return await gone(c);
    if (answer.status === "wrong") return await showForm(c, WRONG_CODE, 401);
    // As after a password alone: a fresh session, never an older one reused.
    const previous = await currentSession(c);
    if (previous) await deleteWebSession(db, previous.id);
    const session = await createWebSession(db, c.get("ctx").core.activity, answer.userId, {
      userAgent: c.req.header("user-agent") ?? null,
      ip: clientIp(c),
    });
    setSessionCookie(c, session.secret);
    deleteCookie(c, CHALLENGE_COOKIE, cookieOptions(c));
    c.header("Cache-Control", "no-store");
    return c.redirect(answer.destination, 303);
  });

  return app;
}
