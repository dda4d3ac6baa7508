/**
 * Deletes and Undos that arrive before what they remove, as Mastodon's
 * `delete_upon_arrival`: a peer sends a Create and its Delete (or a Like and
 * its Undo) at the same moment, and the second reaches us first. Applying
 * activities in order (inbox_order.ts) cannot help then; remembering the
 * removal does.
 *
 * - A Delete of a status we never stored remembers the status's id: the
 *   Create that comes later is dropped, and so is anything else that would
 *   store it (an Announce of it, a reply's fetch of its parent), since every
 *   remote status is stored through fetch_status.ts, which asks here.
 * - An Undo of a Like, Announce, Follow or Block we never saw (or of a bare
 *   id that matches nothing of the sender's) remembers that activity's id:
 *   the activity that comes later is dropped.
 *
 * Only ids on the sender's own server are remembered, for the sender's
 * account, so no one can stop another server's posts or activities.
 * Memory is bounded: a row lives {@link EARLY_DELETE_TTL_HOURS} hours
 * (worker maintenance purges the expired ones), an account keeps its
 * {@link MAX_EARLY_DELETES_PER_ACCOUNT} newest, and ids longer than a URL we
 * would store are not remembered.
 */
import { and, eq, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { Activity } from "@fedify/vocab";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/connection.ts";
import { earlyDeletes, interactionRequests, statuses } from "../../db/schema/mod.ts";
import { executePrepared, preparedQuery } from "../../db/queries/prepared.ts";
import type { StatusRow } from "../../actors/statuses/create.ts";
import { MAX_URL_LENGTH, sameOrigin } from "../fetch/trust.ts";

const logger = getLogger(["rookery", "federation", "inbox", "early_deletes"]);

/** How long a removal that arrived first is remembered (Mastodon: six hours, and Tombstones). */
export const EARLY_DELETE_TTL_HOURS = 24;

/** Removals remembered per remote account at most; the oldest go first. */
export const MAX_EARLY_DELETES_PER_ACCOUNT = 1_000;

/** Who removed what: the sender's stored account and the removed id. */
export interface EarlyDelete {
  accountId: string;
  /** The sender's actor URI (the removed id must be on its server). */
  actorUri: string;
  uri: string;
}

/**
 * Remembers that `removal.actorUri` removed `removal.uri` before we saw it.
 * One statement: the row, and the account's oldest beyond the bound.
 */
export async function rememberEarlyDelete(app: AppContext, removal: EarlyDelete): Promise<void> {
  const { accountId, actorUri, uri } = removal;
  if (uri.length > MAX_URL_LENGTH || !sameOrigin(uri, actorUri)) return;
  await executePrepared(
    app.database.db,
    "remember_early_delete",
    () =>
      sql`WITH added AS (
        INSERT INTO early_deletes (uri, account_id, expires_at)
        VALUES (${sql.placeholder("uri")}, ${sql.placeholder("account")},
          now() + ${EARLY_DELETE_TTL_HOURS} * interval '1 hour')
        ON CONFLICT (uri, account_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
        RETURNING 1)
      DELETE FROM early_deletes WHERE account_id = ${sql.placeholder("account")}
        AND uri IN (SELECT uri FROM early_deletes WHERE account_id = ${sql.placeholder("account")}
          ORDER BY expires_at DESC OFFSET ${MAX_EARLY_DELETES_PER_ACCOUNT - 1})`,
    { uri, account: accountId },
  );
  logger.debug("Remembered the removal of {uri}, which arrived first.", { uri });
}

/**
 * Whether the account `accountId` undid `activity` before it arrived (a
 * Like, Announce, Follow or Block to drop); logged when so.
 */
export async function undoneEarly(
  app: AppContext,
  accountId: string,
  activity: Activity,
): Promise<boolean> {
  if (!activity.id || !await deletedEarly(app, accountId, activity.id.href)) return false;
  logger.info("Dropped {id}: its Undo arrived first.", { id: activity.id.href });
  return true;
}

/** Whether account `accountId` removed `uri` before it arrived (and the memory is fresh). */
async function deletedEarly(app: AppContext, accountId: string, uri: string) {
  const rows = await preparedQuery(
    app.database.db,
    "early_delete",
    (db) =>
      db.select({ uri: earlyDeletes.uri }).from(earlyDeletes).where(and(
        eq(earlyDeletes.uri, sql.placeholder("uri")),
        eq(earlyDeletes.accountId, sql.placeholder("account")),
        sql`${earlyDeletes.expiresAt} > now()`,
      )).limit(1),
  ).execute({ uri, account: accountId });
  return rows.length > 0;
}

/** What is on record about a status IRI before it is stored ({@link statusOrEarlyDelete}). */
export interface StatusRecord {
  /** The stored status (a deleted one too: it is not stored again). */
  status: StatusRow | null;
  /** Its author deleted it before it arrived. */
  deletedEarly: boolean;
  /** It was refused as an interaction (a reply) before (actors/interactions/remote_requests.ts's wasRejected). */
  rejected: boolean;
}

/**
 * What is on record about `uri`, by author `accountId`, in one query:
 * every inbound status asks this before it is stored, and createStatus
 * does not look the IRI up again (`uriChecked`).
 */
export async function statusOrEarlyDelete(
  app: AppContext,
  uri: string,
  accountId: string,
): Promise<StatusRecord> {
  const [row] = await preparedQuery(
    app.database.db,
    "status_or_early_delete",
    (db) =>
      db.select({
        status: statuses,
        deletedEarly: sql<boolean>`EXISTS (SELECT 1 FROM ${earlyDeletes}
          WHERE ${earlyDeletes.uri} = ${sql.placeholder("uri")}
            AND ${earlyDeletes.accountId} = ${sql.placeholder("account")}
            AND ${earlyDeletes.expiresAt} > now())`,
        rejected: sql<boolean>`EXISTS (SELECT 1 FROM ${interactionRequests}
          WHERE ${interactionRequests.interactionUri} = ${sql.placeholder("uri")}
            AND ${interactionRequests.state} = 'rejected')`,
      }).from(sql`(SELECT 1) AS one`)
        .leftJoin(statuses, eq(statuses.uri, sql.placeholder("uri"))).limit(1),
  ).execute({ uri, account: accountId });
  return {
    status: row?.status ?? null,
    deletedEarly: row?.deletedEarly === true,
    rejected: row?.rejected === true,
  };
}

/** Forgets the removals past their time; run by the worker's maintenance. */
export async function purgeEarlyDeletes(db: Db): Promise<void> {
  await db.delete(earlyDeletes).where(sql`${earlyDeletes.expiresAt} <= now()`);
}
