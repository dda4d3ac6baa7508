/**
 * Two-factor sign-in with TOTP (RFC 6238, as authenticator apps and
 * Mastodon's devise-two-factor do it: SHA-1, 6 digits, 30 seconds, one step
 * of clock drift either way) and recovery codes.
 *
 * - Enabling: a secret is made and kept on the browser session
 *   (`web_sessions.pending_otp_secret`) until a code from the app confirms
 *   it; then it moves to the user and 10 recovery codes are made, shown
 *   once and stored only as SHA-256, each good once.
 * - A code is good once: the time step it matched is remembered
 *   (`users.otp_last_step`), so a code seen over a shoulder cannot be replayed.
 * - Disabling needs the password and a code (or a recovery code).
 * - Signing in: after the password, a challenge bound to the browser by a
 *   cookie (its SHA-256 in `sign_in_challenges`) waits for the code; it
 *   expires after 5 minutes and is given up after 5 wrong codes, so guessing
 *   needs the password again for every 5 guesses (and the password's own
 *   limits apply).
 *
 * The TOTP secret is kept as is: the server must compute codes from it.
 */
import { and, eq, gt, lt, sql } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { signInChallenges, users, webSessions } from "../../db/schema/mod.ts";
import type { ConfirmedPassword } from "./sessions.ts";
import { hashSecret, randomSecret } from "../oauth/tokens.ts";

/** How many recovery codes a user gets. */
export const RECOVERY_CODE_COUNT = 10;
/** How long the code step of a sign-in waits. */
export const CHALLENGE_VALID_MS = 5 * 60 * 1000;
/** Wrong codes a sign-in challenge takes before it is given up. */
export const CHALLENGE_MAX_ATTEMPTS = 5;

const PERIOD = 30;

function totp(secret: string, label = "", issuer = ""): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer,
    label,
    algorithm: "SHA1",
    digits: 6,
    period: PERIOD,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

/** A new random secret (160 bits, base32), as authenticator apps take it. */
export function newOtpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app reads (as text or QR code). */
export function otpauthUri(secret: string, account: string, issuer: string): string {
  return totp(secret, account, issuer).toString();
}

/**
 * The time step a code matches (now, or one step either side), or null.
 * Codes are 6 digits; spaces people type are ignored.
 */
export function matchingStep(secret: string, code: string, now = Date.now()): number | null {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totp(secret).validate({ token, timestamp: now, window: 1 });
  if (delta == null) return null;
  return Math.floor(now / 1000 / PERIOD) + delta;
}

/** A recovery code as shown: 10 lowercase hex characters, easy to type. */
function newRecoveryCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function normalRecoveryCode(code: string): string {
  return code.replace(/[\s-]+/g, "").toLowerCase();
}

/** The two-factor state of a user. */
export async function otpState(
  db: Executor,
  userId: string,
): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
  const [row] = await db.select({
    enabled: users.otpRequiredForLogin,
    codes: users.otpBackupCodes,
  }).from(users).where(eq(users.id, userId)).limit(1);
  return { enabled: row?.enabled ?? false, recoveryCodesLeft: row?.codes.length ?? 0 };
}

/** The secret waiting on a session for its first code; made if there is none. */
export async function pendingSecret(db: Executor, sessionId: string): Promise<string> {
  const [row] = await db.select({ secret: webSessions.pendingOtpSecret }).from(webSessions)
    .where(eq(webSessions.id, sessionId)).limit(1);
  if (row?.secret) return row.secret;
  const secret = newOtpSecret();
  await db.update(webSessions).set({ pendingOtpSecret: secret }).where(
    eq(webSessions.id, sessionId),
  );
  return secret;
}

/**
 * Checks a code (TOTP, or a recovery code when `allowRecovery`) for a user
 * inside a transaction, using it up. True when it was good.
 */
async function useCode(
  tx: Executor,
  userId: string,
  code: string,
  allowRecovery: boolean,
  now: number,
): Promise<boolean> {
  const [row] = await tx.select({
    secret: users.otpSecret,
    codes: users.otpBackupCodes,
    lastStep: users.otpLastStep,
  }).from(users).where(eq(users.id, userId)).for("update").limit(1);
  if (!row?.secret) return false;
  const step = matchingStep(row.secret, code, now);
  if (step != null) {
    if (row.lastStep != null && step <= row.lastStep) return false;
    await tx.update(users).set({ otpLastStep: step }).where(eq(users.id, userId));
    return true;
  }
  if (!allowRecovery) return false;
  const normal = normalRecoveryCode(code);
  if (!/^[0-9a-f]{10}$/.test(normal)) return false;
  const hash = await hashSecret(normal);
  if (!row.codes.includes(hash)) return false;
  await tx.update(users).set({ otpBackupCodes: row.codes.filter((c) => c !== hash) })
    .where(eq(users.id, userId));
  return true;
}

/**
 * Turns two-factor sign-in on with the session's pending secret, if `code`
 * matches it. Returns the recovery codes (to be shown once), or null when
 * the code is wrong (or there is no pending secret).
 */
export async function enableOtp(
  db: Executor,
  sessionId: string,
  userId: string,
  code: string,
  now = Date.now(),
): Promise<string[] | null> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const hashes = await Promise.all(codes.map(hashSecret));
  return await db.transaction(async (tx) => {
    const [session] = await tx.select({ secret: webSessions.pendingOtpSecret })
      .from(webSessions).where(and(eq(webSessions.id, sessionId), eq(webSessions.userId, userId)))
      .for("update").limit(1);
    if (!session?.secret) return null;
    const step = matchingStep(session.secret, code, now);
    if (step == null) return null;
    await tx.update(users).set({
      otpSecret: session.secret,
      otpRequiredForLogin: true,
      otpBackupCodes: hashes,
      otpLastStep: step,
    }).where(eq(users.id, userId));
    await tx.update(webSessions).set({ pendingOtpSecret: null }).where(
      eq(webSessions.id, sessionId),
    );
    return codes;
  });
}

/**
 * Turns two-factor sign-in off, given the confirmed password and a code (or
 * recovery code); false when the code is wrong.
 */
export async function disableOtp(
  db: Executor,
  confirmed: ConfirmedPassword,
  code: string,
  now = Date.now(),
): Promise<boolean> {
  const { userId } = confirmed;
  return await db.transaction(async (tx) => {
    if (!await useCode(tx, userId, code, true, now)) return false;
    await tx.update(users).set({
      otpSecret: null,
      otpRequiredForLogin: false,
      otpBackupCodes: [],
      otpLastStep: null,
    }).where(eq(users.id, userId));
    return true;
  });
}

/** Whether a user must give a second factor when signing in. */
export async function requiresOtp(db: Executor, userId: string): Promise<boolean> {
  const [row] = await db.select({ on: users.otpRequiredForLogin }).from(users)
    .where(eq(users.id, userId)).limit(1);
  return row?.on ?? false;
}

/** Starts the code step of a sign-in; returns the secret for the browser's cookie. */
export async function createChallenge(
  db: Executor,
  userId: string,
  destination: string,
  userAgent: string | null,
): Promise<string> {
  const secret = randomSecret();
  // Old challenges of anyone are of no use: sweep them as new ones come.
  await db.delete(signInChallenges).where(
    lt(signInChallenges.createdAt, new Date(Date.now() - CHALLENGE_VALID_MS)),
  );
  await db.insert(signInChallenges).values({
    id: newId(),
    tokenHash: await hashSecret(secret),
    userId,
    destination,
    userAgent: userAgent?.slice(0, 500) ?? null,
  });
  return secret;
}

/** A live challenge behind a cookie value, or null. */
export async function findChallenge(
  db: Executor,
  secret: string | undefined,
  now = Date.now(),
): Promise<{ id: string; userId: string; destination: string } | null> {
  if (!secret || secret.length > 200) return null;
  const [row] = await db.select({
    id: signInChallenges.id,
    userId: signInChallenges.userId,
    destination: signInChallenges.destination,
  }).from(signInChallenges).where(and(
    eq(signInChallenges.tokenHash, await hashSecret(secret)),
    gt(signInChallenges.createdAt, new Date(now - CHALLENGE_VALID_MS)),
    lt(signInChallenges.attempts, CHALLENGE_MAX_ATTEMPTS),
  )).limit(1);
  return row ?? null;
}

/** The outcome of a code given at sign-in. */
export type ChallengeAnswer =
  | { status: "ok"; userId: string; destination: string }
  | { status: "wrong"; attemptsLeft: number }
  | { status: "gone" };

/**
 * Checks the code of a sign-in challenge. A right code uses the challenge up;
 * a wrong one counts, and the last allowed wrong one ends the challenge.
 */
export async function answerChallenge(
  db: Executor,
  secret: string | undefined,
  code: string,
  now = Date.now(),
): Promise<ChallengeAnswer> {
  const challenge = await findChallenge(db, secret, now);
  if (!challenge) return { status: "gone" };
  return await db.transaction(async (tx): Promise<ChallengeAnswer> => {
    // Counted first and under the row lock, so parallel guesses cannot exceed the limit.
    const [counted] = await tx.update(signInChallenges)
      .set({ attempts: sql`${signInChallenges.attempts} + 1` })
      .where(and(
        eq(signInChallenges.id, challenge.id),
        lt(signInChallenges.attempts, CHALLENGE_MAX_ATTEMPTS),
      ))
      .returning({ attempts: signInChallenges.attempts });
    if (!counted) return { status: "gone" };
    if (await useCode(tx, challenge.userId, code.slice(0, 100), true, now)) {
      await tx.delete(signInChallenges).where(eq(signInChallenges.id, challenge.id));
      return { status: "ok", userId: challenge.userId, destination: challenge.destination };
    }
    const left = CHALLENGE_MAX_ATTEMPTS - counted.attempts;
    if (left <= 0) {
      await tx.delete(signInChallenges).where(eq(signInChallenges.id, challenge.id));
      return { status: "gone" };
    }
    return { status: "wrong", attemptsLeft: left };
  });
}
