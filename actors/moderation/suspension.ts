/**
 * Suspension, as Mastodon's SuspendAccountService, UnsuspendAccountService
 * and the account deletion that follows a suspension.
 *
 * Suspending only sets `accounts.suspended_at`: every reader already treats
 * a suspended author as absent (db/queries/visibility.ts for statuses, the
 * account readers of db/queries/accounts.ts, the auth middleware for its
 * tokens), so the content disappears at once and comes back on unsuspend,
 * with the follows kept. What suspension does beyond that:
 *
 * - a LOCAL account: its browser sessions end; its access tokens are kept
 *   but refused while the suspension lasts (403 "Your login is currently
 *   disabled", api/middleware/auth.ts; its streams close, api/streaming/hub.ts),
 *   so after unsuspending its apps work again, as on Mastodon, whose
 *   clients (masto.js's own test suite) count on it. Its followers' servers
 *   get an Update of the actor with
 *   `suspended: true` (Mastodon's distribute_update_actor!; Mastodon servers
 *   then suspend the account on their side, remote origin). Unsuspending
 *   sends the Update without it.
 * - a REMOTE account: its follows of local accounts are removed with a
 *   Reject each (Mastodon's reject_remote_follows!: it keeps access on its
 *   own server, so it must not keep receiving our followers-only posts);
 *   like Mastodon this is not undone by unsuspending. Its activities are
 *   refused by the inbox handlers, which ignore suspended senders.
 *
 * {@link purgeAccountData} deletes what a suspended account had (Mastodon's
 * deletion after the grace period, or DELETE /api/v1/admin/accounts/:id).
 */
import { and, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db, Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, follows, users, webSessions } from "../../db/schema/mod.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { deleteLocalAccount } from "./local_users.ts";
import { tombstoneAccount } from "../accounts/tombstone.ts";
import { removeDiscardedMedia } from "../media/discarded.ts";
import type { MediaStore } from "../media/store.ts";

type AccountRow = typeof accounts.$inferSelect;

/** Sets the suspension and does what comes with it, in `tx`. */
export async function suspendAccount(tx: Executor, account: AccountRow): Promise<void> {
  const now = new Date();
  // Suspending again does not restart the grace period.
  const since = account.suspensionOrigin === "local" && account.suspendedAt
    ? account.suspendedAt
    : now;
  await tx.update(accounts).set({ suspendedAt: since, suspensionOrigin: "local", updatedAt: now })
    .where(eq(accounts.id, account.id));
  if (account.domain == null) {
    const [user] = await tx.select({ id: users.id }).from(users)
      .where(eq(users.accountId, account.id));
    if (user) {
      await tx.delete(webSessions).where(eq(webSessions.userId, user.id));
    }
    await recordDelivery(tx, "accountUpdated", account.id, newId());
    return;
  }
  await rejectRemoteFollows(tx, account.id);
}

/** Lifts a suspension (the data left is shown again), in `tx`. */
export async function unsuspendAccount(tx: Executor, account: AccountRow): Promise<void> {
  await tx.update(accounts).set({
    suspendedAt: null,
    suspensionOrigin: null,
    updatedAt: new Date(),
  })
    .where(eq(accounts.id, account.id));
  if (account.domain == null && account.deletedAt == null) {
    await recordDelivery(tx, "accountUpdated", account.id, newId());
  }
}

/** Removes a remote account's follows of local accounts, rejecting each over federation. */
async function rejectRemoteFollows(tx: Executor, accountId: string): Promise<void> {
  const removed = await tx.delete(follows).where(and(
    eq(follows.accountId, accountId),
    sql`${follows.targetAccountId} IN (SELECT id FROM accounts WHERE domain IS NULL)`,
  )).returning();
  if (removed.length === 0) return;
  await tx.update(accounts)
    .set({ followersCount: sql`greatest(${accounts.followersCount} - 1, 0)` })
    .where(inArray(accounts.id, removed.map((f) => f.targetAccountId)));
  await tx.update(accounts)
    .set({ followingCount: sql`greatest(${accounts.followingCount} - ${removed.length}, 0)` })
    .where(eq(accounts.id, accountId));
  for (const follow of removed) {
    await recordDelivery(tx, "followRejected", {
      id: follow.id,
      uri: follow.uri ?? null,
      accountId: follow.accountId,
      targetAccountId: follow.targetAccountId,
    });
  }
}

/**
 * Deletes the data of a suspended account, in `tx`. A local account becomes
 * the tombstone of an account deletion (actors/moderation/local_users.ts
 * deleteLocalAccount: statuses gone, follows removed, the user row deleted,
 * a Delete of the actor sent); it stays suspended, so its name is never
 * given out again. A remote account becomes the same tombstone
 * (actors/accounts/tombstone.ts), so that it is not fetched back. Media files leave the store once the caller's transaction
 * committed (actors/media/discarded.ts).
 */
export async function purgeAccountData(tx: Executor, account: AccountRow): Promise<void> {
  if (account.domain == null) {
    const [user] = await tx.select({ id: users.id }).from(users)
      .where(eq(users.accountId, account.id));
    if (user) await deleteLocalAccount(tx, account.username);
    return;
  }
  await tombstoneAccount(tx, account);
}

/**
 * Suspends and purges every account of `domain` (exact name, any case),
 * in `tx`: Mastodon's UnallowDomainService, when a domain leaves the
 * allow-list in limited federation mode. Each account is locked, marked
 * suspended by us and purged as {@link purgeAccountData} does (statuses,
 * follows both ways with their counters, the row a tombstone). Returns how
 * many accounts were purged.
 */
export async function purgeDomainAccounts(tx: Executor, domain: string): Promise<number> {
  const rows = await tx.select().from(accounts).where(and(
    sql`lower(${accounts.domain}) = ${domain.toLowerCase()}`,
    isNull(accounts.deletedAt),
  )).orderBy(accounts.id).for("update");
  const now = new Date();
  for (const account of rows) {
    await tx.update(accounts).set({ suspendedAt: now, suspensionOrigin: "local", updatedAt: now })
      .where(eq(accounts.id, account.id));
    await purgeAccountData(tx, account);
  }
  return rows.length;
}

/**
 * Purges the accounts our moderators suspended more than `graceDays` ago
 * (the worker's periodic job). Each account in its own transaction, so one
 * failure does not hold back the rest; its media files then leave `media`.
 * Returns how many were purged.
 */
export async function purgeExpiredSuspensions(
  db: Db,
  graceDays: number,
  media: MediaStore,
): Promise<number> {
  const cutoff = new Date(Date.now() - graceDays * 24 * 60 * 60 * 1000);
  const due = await db.select({ id: accounts.id }).from(accounts).where(and(
    lt(accounts.suspendedAt, cutoff),
    eq(accounts.suspensionOrigin, "local"),
    isNull(accounts.deletedAt),
    // Not what an instance domain block suspended (it carries the block's
    // time): lifting the block restores those accounts, as in Mastodon,
    // where BlockDomainService files no deletion request.
    sql`NOT EXISTS (SELECT 1 FROM domain_blocks pdb WHERE pdb.severity = 'suspend'
      AND pdb.created_at = ${accounts.suspendedAt} AND ${accounts.domain} IS NOT NULL
      AND pdb.domain = ANY(rookery_domain_variants(${accounts.domain})))`,
  )).limit(100);
  let purged = 0;
  for (const { id } of due) {
    await db.transaction(async (tx) => {
      // Unsuspended or purged meanwhile? Then leave it.
      const [account] = await tx.select().from(accounts)
        .where(
          and(eq(accounts.id, id), lt(accounts.suspendedAt, cutoff), isNull(accounts.deletedAt)),
        )
        .for("update");
      if (!account) return;
      await purgeAccountData(tx, account);
      purged++;
    });
  }
  if (purged > 0) await removeDiscardedMedia(db, media);
  return purged;
}
