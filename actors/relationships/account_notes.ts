/**
 * Private notes about other accounts (Mastodon's AccountNote): at most 2,000
 * characters; a blank comment removes the note.
 */
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { accountNotes } from "../../db/schema/mod.ts";
import { ValidationError } from "../../model/errors.ts";
import { requirePair } from "./follow_rows.ts";

/** Mastodon's AccountNote::COMMENT_SIZE_LIMIT. */
export const NOTE_MAX = 2_000;

/** Sets (or with a blank comment, removes) `accountId`'s note about `targetId`. */
export async function setAccountNote(
  app: AppContext,
  accountId: string,
  targetId: string,
  comment: string,
): Promise<void> {
  if ([...comment].length > NOTE_MAX) {
    throw new ValidationError({
      comment: [{
        error: "ERR_TOO_LONG",
        description: `is too long (maximum is ${NOTE_MAX} characters)`,
      }],
    });
  }
  await app.database.db.transaction(async (tx) => {
    await requirePair(tx, accountId, targetId);
    const where = and(
      eq(accountNotes.accountId, accountId),
      eq(accountNotes.targetAccountId, targetId),
    );
    if (comment.trim() === "") {
      await tx.delete(accountNotes).where(where);
      return;
    }
    const now = new Date();
    await tx.insert(accountNotes).values({
      accountId,
      targetAccountId: targetId,
      comment,
      updatedAt: now,
    })
      .onConflictDoUpdate({
        target: [accountNotes.accountId, accountNotes.targetAccountId],
        set: { comment, updatedAt: now },
      });
  });
}
