/**
 * Muting, as Mastodon's MuteService: hides an account from timelines and,
 * unless `notifications` is false, its notifications; with a duration the
 * mute ends by itself. Mutes are private: nothing is delivered. As Mastodon,
 * muting takes the account out of the home and list feeds, and a mute that
 * hides notifications also deletes its notifications and conversations
 * (after_block.ts: Mastodon runs its BlockWorker then).
 *
 * An expired mute counts as absent everywhere (relationships, the mutes
 * list); the row stays until the account is muted or unmuted again.
 */
import { and, eq, gt, isNull, or, type SQL } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { newId } from "../../db/ids.ts";
import { mutes } from "../../db/schema/mod.ts";
import { selfError } from "./blocks.ts";
import { requirePair } from "./follow_rows.ts";
import { removeAuthorFromHome, removeAuthorFromLists } from "../timelines/fanout.ts";
import { clearAfterBlock } from "./after_block.ts";

/** Longest mute duration accepted, in seconds (about 100 years; keeps dates valid). */
export const MAX_MUTE_SECONDS = 100 * 365 * 24 * 3600;

export interface MuteOptions {
  /** Also hide notifications from the account (default true). */
  notifications?: boolean;
  /** Seconds until the mute ends by itself; 0 or absent: indefinitely. */
  duration?: number;
}

/** The condition "this mute is in force now". */
export function muteActive(now = new Date()): SQL {
  return or(isNull(mutes.expiresAt), gt(mutes.expiresAt, now))!;
}

/** `accountId` mutes `targetId`; muting again replaces the options and the end time. */
export async function mute(
  app: AppContext,
  accountId: string,
  targetId: string,
  options: MuteOptions = {},
): Promise<void> {
  if (accountId === targetId) throw selfError("mute");
  const seconds = Math.min(Math.max(0, Math.trunc(options.duration ?? 0)), MAX_MUTE_SECONDS);
  const values = {
    hideNotifications: options.notifications ?? true,
    expiresAt: seconds > 0 ? new Date(Date.now() + seconds * 1000) : null,
  };
  await app.database.db.transaction(async (tx) => {
    await requirePair(tx, accountId, targetId);
    await tx.insert(mutes).values({ id: newId(), accountId, targetAccountId: targetId, ...values })
      .onConflictDoUpdate({ target: [mutes.accountId, mutes.targetAccountId], set: values });
    // Mastodon's MuteWorker clears home and lists; a mute that hides
    // notifications runs its BlockWorker instead (after_block.ts).
    if (values.hideNotifications) {
      await clearAfterBlock(tx, accountId, targetId);
    } else {
      await removeAuthorFromHome(tx, accountId, targetId, { announce: true });
      await removeAuthorFromLists(tx, accountId, targetId);
    }
  });
}

/** `accountId` unmutes `targetId` (not muted is not an error). */
export async function unmute(app: AppContext, accountId: string, targetId: string) {
  await app.database.db.transaction(async (tx) => {
    await requirePair(tx, accountId, targetId);
    await tx.delete(mutes).where(
      and(eq(mutes.accountId, accountId), eq(mutes.targetAccountId, targetId)),
    );
  });
}
