/**
 * The refresh of a remote account whose handle another actor took over
 * (handle_takeover.ts): its actor document is fetched again, signed, from
 * its own server, and stored as any actor is, which settles its handle by
 * WebFinger (remote/accounts.ts); an actor its server answers 404 or 410
 * for is gone and purged, as after its own Delete. An actor that cannot be
 * fetched now keeps its placeholder until it is next resolved or delivers.
 */
import { isActor } from "@fedify/vocab";
import { eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts } from "../../db/schema/mod.ts";
import { remoteAccountDeleted } from "../../actors/accounts/remote_account_deletion.ts";
import { instanceContext, lookupRemote } from "../fetch/lookup.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { actorIsGone } from "../actor_gone.ts";
import { upsertRemoteActor } from "./accounts.ts";

const logger = getLogger(["rookery", "federation", "handles"]);

/** Runs the `remote_account_refresh` job of one account. */
export async function refreshRemoteAccount(app: AppContext, accountId: string): Promise<void> {
  const [account] = await app.database.db.select({
    uri: accounts.uri,
    domain: accounts.domain,
    deletedAt: accounts.deletedAt,
  }).from(accounts).where(eq(accounts.id, accountId)).limit(1);
  if (!account || account.domain == null || account.deletedAt) return;
  const ctx = instanceContext(app);
  const actor = await lookupRemote(ctx, account.uri, FetchBudget.of(app));
  if (isActor(actor) && actor.id?.href === account.uri) {
    await upsertRemoteActor(ctx, actor);
    return;
  }
  if (await actorIsGone(ctx, account.uri)) {
    await remoteAccountDeleted(app, accountId);
    return;
  }
  logger.info("Could not refresh {uri}; it keeps its placeholder handle for now.", {
    uri: account.uri,
  });
}
