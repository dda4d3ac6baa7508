/**
 * A remote handle taken over by another actor (Mastodon 4.7): WebFinger on
 * the handle's domain has just named actor X for a handle that our row B
 * holds, so B's handle is known to be outdated. B is renamed to a
 * placeholder (model/handles.ts) in the same transaction that gives X the
 * handle, and a refresh of B is queued (account_refresh.ts): B's actor is
 * fetched again and its handle settled by WebFinger as usual, or B is found
 * gone and purged. Before this, X kept its old handle and B the outdated
 * one, so mentions of the handle reached the wrong actor.
 *
 * Apart from remote/accounts.ts (which calls it) and from the refresh job
 * (which calls remote/accounts.ts), so neither imports the other.
 */
import { eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { accounts } from "../../db/schema/mod.ts";
import { invalidatedUsername } from "../../model/handles.ts";
import { recordJob } from "../../actors/outbox/jobs.ts";

const logger = getLogger(["rookery", "federation", "handles"]);

/** Gives the account the placeholder username, to be settled by its refresh. */
export async function invalidateHandle(tx: Executor, accountId: string): Promise<void> {
  await tx.update(accounts).set({
    username: invalidatedUsername(accountId),
    lastWebfingeredAt: null,
  }).where(eq(accounts.id, accountId));
}

/**
 * Queues the refresh of an account whose handle was taken over. Never
 * throws: the handle has moved already; an account whose refresh is not
 * queued keeps its placeholder until it is next resolved or delivers.
 */
export async function scheduleAccountRefresh(app: AppContext, accountId: string): Promise<void> {
  try {
    await recordJob(app.database.db, { job: "remote_account_refresh", accountId });
  } catch (error) {
    logger.warn("Could not queue the refresh of {accountId}: {error}", { accountId, error });
  }
}
