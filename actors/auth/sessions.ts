/**
 * Browser sign-in for the OAuth pages: checking a password, refusing logins
 * that may not be used, and the web sessions that remember a signed-in
 * browser. The session secret lives only in the browser's cookie; the
 * database keeps its SHA-256 and a per-session CSRF token that forms echo.
 */
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, oauthAccessTokens, users, webSessions } from "../../db/schema/mod.ts";
import { hasControlCharacters } from "../oauth/oauth.ts";
import { verifyPassword } from "./passwords.ts";
import { hashSecret, randomSecret } from "../oauth/tokens.ts";
import { type ActivityMemo, recordActiveDay } from "../accounts/user_activity.ts";

/** A session unused for this long is over (the cookie lives as long). */
export const SESSION_IDLE_MS = 30 * 24 * 60 * 60 * 1000;
/** How stale last_seen_at may get before a visit refreshes it (saves a write per page). */
const TOUCH_INTERVAL_MS = 60 * 60 * 1000;

/** Mastodon's words for logins that exist but may not be used. */
export const LOGIN_REFUSALS = {
  unconfirmed: "Your login is missing a confirmed e-mail address",
  pending: "Your login is currently pending approval",
  disabled: "Your login is currently disabled",
} as const;

/** The sign-in state of a user. */
export interface LoginState {
  confirmed: boolean;
  approved: boolean;
  disabled: boolean;
}

/**
 * Why a login may not be used, or null when it may. The order is Mastodon's
 * (`Api::BaseController#require_user!`): confirmation, approval, then the
 * rest of "functional" (disabled).
 */
export function loginRefusal(state: LoginState): string | null {
  if (!state.confirmed) return LOGIN_REFUSALS.unconfirmed;
  if (!state.approved) return LOGIN_REFUSALS.pending;
  if (state.disabled) return LOGIN_REFUSALS.disabled;
  return null;
}

/** The signed-in user of a session or a password check. */
export interface SignedInUser {
  userId: string;
  accountId: string;
  username: string;
  email: string;
  /** The user's role (model/permissions.ts), for the staff pages. */
  role: string;
  state: LoginState;
}

const userColumns = {
  userId: users.id,
  accountId: users.accountId,
  username: accounts.username,
  email: users.email,
  role: users.role,
  confirmedAt: users.confirmedAt,
  approved: users.approved,
  disabled: users.disabled,
  suspendedAt: accounts.suspendedAt,
  deletedAt: accounts.deletedAt,
  passwordHash: users.passwordHash,
};

type UserRow = {
  userId: string;
  accountId: string;
  username: string;
  email: string;
  role: string;
  confirmedAt: Date | null;
  approved: boolean;
  disabled: boolean;
  suspendedAt: Date | null;
  deletedAt: Date | null;
};

function toSignedIn(row: UserRow): SignedInUser {
  return {
    userId: row.userId,
    accountId: row.accountId,
    username: row.username,
    email: row.email,
    role: row.role,
    state: {
      confirmed: row.confirmedAt != null,
      approved: row.approved,
      // A suspended or deleted account cannot sign in either; Mastodon counts
      // both as not "functional", which it words as disabled.
      disabled: row.disabled || row.suspendedAt != null || row.deletedAt != null,
    },
  };
}

/**
 * A hash to verify against when the login is unknown, so both failures take
 * as long: hashPassword's output (same argon2id parameters, passwords.ts)
 * for a random secret nobody kept. A constant rather than a hash made at the
 * first use, which a process would have to keep.
 */
const TIMING_DUMMY =
  "$argon2id$v=19$m=19456,t=2,p=1$m12Vx/jH4SD1C0plW2+d6w$bAkZeVf4yyXQamgqklePE474H+2KX768GeyCAsDeJoI";

/** The result of a password check. */
export type PasswordCheck =
  | { ok: true; user: SignedInUser }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "refused"; message: string };

/** The condition that finds a login (e-mail address or local username), or null if none can match. */
function loginCondition(login: string) {
  const name = normalLogin(login);
  // A NUL would make PostgreSQL refuse the query: such a login is simply unknown.
  if (!name || name.length > 320 || hasControlCharacters(name)) return null;
  return name.includes("@")
    ? sql`lower(${users.email}) = ${name}`
    : and(isNull(accounts.domain), sql`lower(${accounts.username}) = ${name}`);
}

/** A login as typed, in the form it is looked up by. */
export function normalLogin(login: string): string {
  return login.trim().replace(/^@/, "").toLowerCase();
}

/**
 * Whose password a sign-in attempt with this login would test: the user's id,
 * or null when no user has that e-mail address or username.
 */
export async function findLoginUser(db: Executor, login: string): Promise<string | null> {
  const condition = loginCondition(login);
  if (!condition) return null;
  const [row] = await db.select({ id: users.id }).from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId)).where(condition).limit(1);
  return row ? String(row.id) : null;
}

/**
 * Checks an e-mail address or username and a password. Unknown logins and
 * wrong passwords give the same answer (and take as long); only after the
 * right password does the caller learn that a login is refused and why.
 */
export async function checkPassword(
  db: Executor,
  login: string,
  password: string,
): Promise<PasswordCheck> {
  const condition = loginCondition(login);
  let row: (UserRow & { passwordHash: string }) | undefined;
  if (condition) {
    [row] = await db.select(userColumns).from(users)
      .innerJoin(accounts, eq(accounts.id, users.accountId)).where(condition).limit(1);
  }
  const valid = await verifyPassword(row?.passwordHash ?? TIMING_DUMMY, password);
  if (!row || !valid) return { ok: false, reason: "invalid" };
  const user = toSignedIn(row);
  const refusal = loginRefusal(user.state);
  if (refusal) return { ok: false, reason: "refused", message: refusal };
  return { ok: true, user };
}

declare const confirmed: unique symbol;

/**
 * Proof that the signed-in user has just typed their own password (Mastodon's
 * current_password), and that the guess was counted in the account's
 * sign-in limit. Only `checkOwnPassword` (web/routes/settings/password_guess.ts,
 * where the limits live) makes one; the commands that want the current
 * password (e-mail and password change, turning two-factor sign-in off) take
 * this instead of the password, so none of them can test a password uncounted.
 */
export interface ConfirmedPassword {
  readonly userId: string;
  readonly [confirmed]: true;
}

/**
 * Whether `password` is the signed-in user's own. Callers: `checkOwnPassword`
 * only, which counts the guess first (see {@link ConfirmedPassword}).
 */
export async function passwordMatches(
  db: Executor,
  userId: string,
  password: string,
): Promise<boolean> {
  const [row] = await db.select({ hash: users.passwordHash }).from(users)
    .where(eq(users.id, userId)).limit(1);
  return await verifyPassword(row?.hash ?? TIMING_DUMMY, password) && !!row;
}

/** A new session: the cookie value and the CSRF token its forms must carry. */
export interface NewSession {
  secret: string;
  csrfToken: string;
}

/** Starts a browser session for a user. */
export async function createWebSession(
  db: Executor,
  memo: ActivityMemo,
  userId: string,
  meta: { userAgent?: string | null; ip?: string | null } = {},
): Promise<NewSession> {
  const secret = randomSecret();
  const csrfToken = randomSecret();
  await db.insert(webSessions).values({
    id: newId(),
    tokenHash: await hashSecret(secret),
    userId,
    csrfToken,
    userAgent: meta.userAgent?.slice(0, 500) ?? null,
    ip: meta.ip ?? null,
  });
  await recordActiveDay(db, memo, userId);
  return { secret, csrfToken };
}

/** A live session with its user. */
export interface WebSession {
  id: string;
  csrfToken: string;
  user: SignedInUser;
  /** The session's live web token (web_tokens.ts), when it has one yet. */
  webToken: { id: string; applicationId: string | null } | null;
}

/**
 * The live session behind a cookie value, or null. Idle sessions are over;
 * a visit refreshes last_seen_at at most hourly.
 */
export async function findWebSession(
  db: Executor,
  memo: ActivityMemo,
  secret: string | undefined,
  now = new Date(),
): Promise<WebSession | null> {
  if (!secret || secret.length > 200) return null;
  const cutoff = new Date(now.getTime() - SESSION_IDLE_MS);
  const [row] = await db.select({
    ...userColumns,
    sessionId: webSessions.id,
    csrfToken: webSessions.csrfToken,
    lastSeenAt: webSessions.lastSeenAt,
    webTokenId: oauthAccessTokens.id,
    webApplicationId: oauthAccessTokens.applicationId,
  }).from(webSessions)
    .innerJoin(users, eq(users.id, webSessions.userId))
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    // The web token rides along, so the app's pages cost no extra query for it.
    .leftJoin(
      oauthAccessTokens,
      and(eq(oauthAccessTokens.webSessionId, webSessions.id), isNull(oauthAccessTokens.revokedAt)),
    )
    .where(
      and(eq(webSessions.tokenHash, await hashSecret(secret)), gt(webSessions.lastSeenAt, cutoff)),
    )
    .limit(1);
  if (!row) return null;
  if (now.getTime() - row.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
    await db.update(webSessions).set({ lastSeenAt: now }).where(eq(webSessions.id, row.sessionId));
  }
  // A visit with a session is activity too (the admin active_users measure).
  if (!row.disabled && !row.suspendedAt && !row.deletedAt) {
    await recordActiveDay(db, memo, row.userId, now);
  }
  return {
    id: row.sessionId,
    csrfToken: row.csrfToken,
    user: toSignedIn(row),
    webToken: row.webTokenId ? { id: row.webTokenId, applicationId: row.webApplicationId } : null,
  };
}

/** Ends a session (sign-out, or a session whose user may no longer sign in). */
export async function deleteWebSession(db: Executor, id: string): Promise<void> {
  await db.delete(webSessions).where(eq(webSessions.id, id));
}
