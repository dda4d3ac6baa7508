/**
 * What stays of an account whose data is deleted, local or remote: a
 * tombstone row (deleted_at set) that keeps the name and the actor IRI taken,
 * so that the name is never handed out again and the IRI answers 410 (local)
 * or is never fetched back (remote).
 *
 * As Mastodon's DeleteAccountService when it keeps the account record
 * (purge_profile!): the profile is emptied (name, bio, fields, avatar,
 * header, aliases, the move), the flags that would list it are cleared and
 * the counters are zero; its statuses are marked deleted, its media rows go
 * (media/removal.ts; the files once the caller's transaction committed) and
 * its follows both ways, with the other sides' counters. Callers add what
 * differs: a local account's user row and Delete(Person) (moderation/
 * local_users.ts), a remote account's interactions and relations
 * (remote_account_deletion.ts).
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accounts, statuses } from "../../db/schema/mod.ts";
import { purgeAccountMedia } from "../media/removal.ts";
import { removeAllFollows } from "../relationships/follow_rows.ts";

type AccountRow = typeof accounts.$inferSelect;

/** Turns `account` into a tombstone, in `tx` (see the module notes); returns the follows removed. */
export async function tombstoneAccount(tx: Executor, account: AccountRow): Promise<number> {
  const now = new Date();
  await tx.update(statuses).set({ deletedAt: now })
    .where(and(eq(statuses.accountId, account.id), isNull(statuses.deletedAt)));
  await purgeAccountMedia(tx, account);
  const removedFollows = await removeAllFollows(tx, account.id);
  await tx.update(accounts).set({
    deletedAt: now,
    updatedAt: now,
    displayName: "",
    note: "",
    fields: [],
    avatarUrl: null,
    headerUrl: null,
    alsoKnownAs: [],
    movedToAccountId: null,
    locked: false,
    memorial: false,
    discoverable: false,
    indexable: false,
    followersCount: 0,
    followingCount: 0,
    statusesCount: 0,
  }).where(eq(accounts.id, account.id));
  return removedFollows;
}
