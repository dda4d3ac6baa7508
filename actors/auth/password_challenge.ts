/**
 * Mastodon's "sudo mode" (its ChallengableConcern): a browser session that
 * has just typed its password may open a sensitive settings page for an
 * hour, each visit extending the hour; after that the page asks for the
 * password again. It guards setting up two-factor sign-in, so that whoever
 * holds a stolen session cookie cannot tie the account to their own
 * authenticator app and lock its owner out.
 *
 * Passing takes the proof only web/routes/settings/password_guess.ts makes,
 * so the password typed here counts in the account's sign-in bucket.
 */
import { and, eq, gt } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { webSessions } from "../../db/schema/mod.ts";
import type { ConfirmedPassword } from "./sessions.ts";

/** How long a passed challenge opens the guarded pages (Mastodon's CHALLENGE_TIMEOUT). */
export const CHALLENGE_GRACE_MS = 60 * 60 * 1000;

/** Records that the session's own user has just confirmed the password. */
export async function passChallenge(
  db: Executor,
  sessionId: string,
  confirmed: ConfirmedPassword,
  now = new Date(),
): Promise<void> {
  await db.update(webSessions).set({ challengePassedAt: now })
    .where(and(eq(webSessions.id, sessionId), eq(webSessions.userId, confirmed.userId)));
}

/**
 * Whether the session passed the challenge within the grace period; if it
 * did, the period starts again from `now`, as Mastodon refreshes it.
 */
export async function challengePassedRecently(
  db: Executor,
  sessionId: string,
  now = new Date(),
): Promise<boolean> {
  const since = new Date(now.getTime() - CHALLENGE_GRACE_MS);
  const refreshed = await db.update(webSessions).set({ challengePassedAt: now })
    .where(and(eq(webSessions.id, sessionId), gt(webSessions.challengePassedAt, since)))
    .returning({ id: webSessions.id });
  return refreshed.length > 0;
}
