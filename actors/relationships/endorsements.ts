/**
 * Endorsements ("featured accounts" on a profile; the API's pin/unpin and
 * endorse/unendorse). As Mastodon's AccountPin, only an account one follows
 * can be endorsed.
 */
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { newId } from "../../db/ids.ts";
import { endorsements, follows } from "../../db/schema/mod.ts";
import { ValidationError } from "../../model/errors.ts";
import { pairOf, requirePair } from "./follow_rows.ts";

/** Mastodon caps the number of featured accounts; beyond it endorsing is refused. */
export const MAX_ENDORSEMENTS = 1_000;

/** `accountId` features `targetId` on its profile. */
export async function endorse(app: AppContext, accountId: string, targetId: string) {
  await app.database.db.transaction(async (tx) => {
    await requirePair(tx, accountId, targetId);
    const [following] = await tx.select({ id: follows.id }).from(follows)
      .where(pairOf(follows, accountId, targetId)).limit(1);
    if (!following) {
      throw new ValidationError({
        base: [{
          error: "ERR_INVALID",
          description: "You must be already following the person you want to endorse",
        }],
      });
    }
    const existing = await tx.$count(endorsements, eq(endorsements.accountId, accountId));
    if (existing >= MAX_ENDORSEMENTS) {
      throw new ValidationError({
        base: [{ error: "ERR_TOO_LONG", description: "You have endorsed too many accounts" }],
      });
    }
    await tx.insert(endorsements).values({ id: newId(), accountId, targetAccountId: targetId })
      .onConflictDoNothing();
  });
}

/** `accountId` stops featuring `targetId` (not featured is not an error). */
export async function unendorse(app: AppContext, accountId: string, targetId: string) {
  await app.database.db.transaction(async (tx) => {
    await requirePair(tx, accountId, targetId);
    await tx.delete(endorsements).where(
      and(eq(endorsements.accountId, accountId), eq(endorsements.targetAccountId, targetId)),
    );
  });
}
