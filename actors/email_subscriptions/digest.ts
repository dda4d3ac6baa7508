/**
 * When a digest of an account's posts is due (Mastodon 4.7 newsletters).
 * A new local post that subscribers get (public, not a reply to someone
 * else, not a boost) schedules one digest: `email_digests.due_at` is set
 * only when no digest is pending, to the later of "now + EMAIL_DIGEST_DELAY"
 * and "last sent + EMAIL_DIGEST_MIN_INTERVAL", and the `email_digest` job is
 * recorded in the post's transaction to run then. So a burst of posts is one mail, and a list gets at most one an hour.
 */
import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { Config } from "../../config.ts";
import type { Executor } from "../../db/connection.ts";
import { emailDigests, emailSubscriptions } from "../../db/schema/mod.ts";
import { recordJob } from "../outbox/jobs.ts";

/** What of a new status decides whether subscribers get it. */
export interface DigestCandidate {
  accountId: string;
  local: boolean;
  visibility: string;
  reblogOfId: string | null;
  inReplyToAccountId: string | null;
}

/** When digests go: the delay after a first new post, the least gap between two. */
export type DigestTiming = Pick<Config["emailSubscriptions"], "digestDelayMs" | "minIntervalMs">;

/** Whether subscribers get the status (a reply to oneself counts: a thread). */
export function goesToSubscribers(s: DigestCandidate): boolean {
  return s.local && s.visibility === "public" && s.reblogOfId == null &&
    (s.inReplyToAccountId == null || s.inReplyToAccountId === s.accountId);
}

/** Schedules the account's digest for a new status, in the status's transaction. */
export async function requestEmailDigest(
  tx: Executor,
  timing: DigestTiming,
  status: DigestCandidate,
): Promise<void> {
  if (!goesToSubscribers(status)) return;
  const [subscribed] = await tx.select({ id: emailSubscriptions.id }).from(emailSubscriptions)
    .where(and(
      eq(emailSubscriptions.accountId, status.accountId),
      isNotNull(emailSubscriptions.confirmedAt),
    )).limit(1);
  if (!subscribed) return;
  const delay = sql`make_interval(secs => ${timing.digestDelayMs / 1000})`;
  const gap = sql`make_interval(secs => ${timing.minIntervalMs / 1000})`;
  const due = sql`GREATEST(now() + ${delay}, COALESCE(${emailDigests.lastSentAt} + ${gap}, now()))`;
  // Insert, or set due_at on a row with none; nothing when a digest is pending.
  const [row] = await tx.insert(emailDigests)
    .values({ accountId: status.accountId, dueAt: sql`now() + ${delay}` })
    .onConflictDoUpdate({
      target: emailDigests.accountId,
      set: { dueAt: due },
      where: sql`${emailDigests.dueAt} IS NULL`,
    })
    .returning({ dueAt: emailDigests.dueAt });
  if (row?.dueAt) {
    const delayMs = Math.max(0, row.dueAt.getTime() - Date.now());
    await recordJob(tx, { job: "email_digest", accountId: status.accountId }, { delayMs });
  }
}
