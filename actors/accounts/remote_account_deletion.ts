/**
 * A remote account deleted on its own server (a Delete whose object is its
 * actor, which federation/ has checked is really gone): Mastodon's
 * DeleteAccountService with reserve_username false. Whatever it had here
 * goes, in one transaction:
 *
 * - by the purge of a suspended account (moderation/suspension.ts
 *   purgeAccountData), so by the same paths as a local account's deletion:
 *   its statuses and boosts marked deleted, its media rows (media/removal.ts)
 *   with their files, its follows both ways with the other sides' counters;
 * - what it added to other accounts' statuses, first: its favourites (rows
 *   and counters) and the counters its boosts, replies and quotes raised;
 * - its follow requests, blocks both ways, and the mutes, endorsements and
 *   notes about it.
 *
 * The row stays as a tombstone (tombstone.ts: the profile emptied), so the same actor IRI is never
 * taken for someone else. Media files leave the store once the transaction
 * committed (media/discarded.ts).
 */
import { eq, or, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { accountNotes, accounts, blocks, endorsements, mutes } from "../../db/schema/mod.ts";
import { followRequests } from "../../db/schema/mod.ts";
import { isLocal, removeRequests } from "../relationships/follow_rows.ts";
import { purgeAccountData } from "../moderation/suspension.ts";
import { flushDiscardedMedia } from "../media/discarded.ts";

/** Deletes what the remote account `accountId` had here (see the module notes). */
export async function remoteAccountDeleted(app: AppContext, accountId: string): Promise<void> {
  const db = app.database.db;
  const purged = await db.transaction(async (tx) => {
    // Locked, so a concurrent Update or follow of it waits for the purge.
    const [account] = await tx.select().from(accounts).where(eq(accounts.id, accountId))
      .for("update");
    if (!account || isLocal(account) || account.deletedAt) return false;
    await withdrawInteractions(tx, accountId);
    await purgeAccountData(tx, account);
    await removeRelations(tx, accountId);
    return true;
  });
  if (purged) await flushDiscardedMedia(db, app.config);
}

/** The counters a live status raises on the status it links to. */
const RAISED_BY_STATUSES = [
  { column: "reblog_of_id", counter: "reblogs_count" },
  { column: "in_reply_to_id", counter: "replies_count" },
] as const;

/**
 * Takes back what the account did to other statuses: its favourites go, and
 * the favourite, boost, reply and quote counters they and its live statuses
 * raised come down (interactions still waiting for approval raised none).
 * Runs before its statuses are marked deleted.
 */
async function withdrawInteractions(tx: Executor, accountId: string): Promise<void> {
  await tx.execute(sql`WITH gone AS (
      DELETE FROM favourites WHERE account_id = ${accountId}::bigint
      RETURNING status_id, pending_approval
    )
    UPDATE statuses s SET favourites_count = GREATEST(s.favourites_count - g.n, 0)
    FROM (SELECT status_id, count(*)::int AS n FROM gone WHERE NOT pending_approval
      GROUP BY status_id) g
    WHERE s.id = g.status_id`);
  for (const { column, counter } of RAISED_BY_STATUSES) {
    const [link, count] = [sql.identifier(column), sql.identifier(counter)];
    await tx.execute(sql`UPDATE statuses s SET ${count} = GREATEST(s.${count} - c.n, 0)
      FROM (SELECT ${link} AS id, count(*)::int AS n FROM statuses
        WHERE account_id = ${accountId}::bigint AND deleted_at IS NULL AND ${link} IS NOT NULL
          AND NOT pending_approval
        GROUP BY ${link}) c
      WHERE s.id = c.id`);
  }
  await tx.execute(sql`UPDATE statuses s SET quotes_count = GREATEST(s.quotes_count - c.n, 0)
    FROM (SELECT q.quoted_status_id AS id, count(*)::int AS n FROM quotes q
      JOIN statuses qs ON qs.id = q.status_id
      WHERE qs.account_id = ${accountId}::bigint AND qs.deleted_at IS NULL
        AND q.state = 'accepted' AND q.quoted_status_id IS NOT NULL
      GROUP BY q.quoted_status_id) c
    WHERE s.id = c.id`);
}

/** The relations the purge leaves: follow requests, blocks, and what others noted about it. */
async function removeRelations(tx: Executor, accountId: string): Promise<void> {
  await removeRequests(
    tx,
    or(eq(followRequests.accountId, accountId), eq(followRequests.targetAccountId, accountId)),
  );
  await tx.delete(blocks).where(
    or(eq(blocks.accountId, accountId), eq(blocks.targetAccountId, accountId)),
  );
  await tx.delete(mutes).where(eq(mutes.targetAccountId, accountId));
  await tx.delete(endorsements).where(eq(endorsements.targetAccountId, accountId));
  await tx.delete(accountNotes).where(eq(accountNotes.targetAccountId, accountId));
}
