/**
 * The inbox listener for `Move` (an account moving to another), as
 * Mastodon's ActivityPub::Activity::Move reads it: the actor moves itself
 * (actor = object), and the target's actor document, fetched fresh, must
 * list the actor in `alsoKnownAs`. Then the move is recorded and the local
 * followers of the actor are redirected to the target by jobs
 * (actors/accounts/moves.ts). A Move that is not confirmed changes nothing.
 *
 * The target's aliases are read by Fedify, whose preloaded ActivityStreams
 * context defines `alsoKnownAs`: a peer with only the plain context is read
 * the same as one with Mastodon's.
 */
import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { isActor, Move } from "@fedify/vocab";
import { eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts } from "../../db/schema/mod.ts";
import { recordRemoteMove } from "../../actors/accounts/moves.ts";
import { findLocalAccountByIdentifier } from "../dispatchers/local_actors.ts";
import { lookupRemote } from "../fetch/lookup.ts";
import { accountForActorUri, type AccountRow, upsertRemoteActor } from "../remote/accounts.ts";

const logger = getLogger(["rookery", "federation", "inbox", "move"]);

/** Registers the Move listener. */
export function registerMoveListener(listeners: InboxListenerSetters<AppContext>): void {
  listeners.on(Move, onMove);
}

async function onMove(ctx: InboxContext<AppContext>, move: Move): Promise<void> {
  const actorId = move.actorId;
  const targetId = move.targetId;
  // Only an account's move of itself (Fedify checked that the signer is the actor).
  if (!actorId || move.objectId?.href !== actorId.href || !targetId) {
    logger.info("Ignored a Move {id}: not an actor moving itself to a target.", {
      id: move.id?.href,
    });
    return;
  }
  if (targetId.href === actorId.href) return;
  const [known] = await ctx.data.database.db.select().from(accounts)
    .where(eq(accounts.uri, actorId.href)).limit(1);
  // Nobody here knows the account: nobody here follows it, nothing to redirect.
  if (!known) return;
  const origin = await accountForActorUri(ctx, actorId);
  if (!origin || origin.domain == null || origin.deletedAt || origin.suspendedAt) return;
  const target = await confirmedTarget(ctx, targetId, origin);
  if (!target) {
    logger.info("Ignored the Move of {origin} to {target}: the target does not list it.", {
      origin: origin.uri,
      target: targetId.href,
    });
    return;
  }
  const recorded = await recordRemoteMove(ctx.data, origin.id, target.id);
  ctx.data.core.remoteSenders.forget(origin.uri);
  logger.info("{origin} moved to {target}{again}.", {
    origin: origin.uri,
    target: target.uri,
    again: recorded ? "" : " (already recorded)",
  });
}

/**
 * The target's account when it lists `origin` in `alsoKnownAs`: a local
 * target by its own aliases, a remote one by its actor document fetched now
 * (and stored, aliases included); null otherwise.
 */
async function confirmedTarget(
  ctx: InboxContext<AppContext>,
  targetId: URL,
  origin: AccountRow,
): Promise<AccountRow | null> {
  const parsed = ctx.parseUri(targetId);
  if (parsed?.type === "actor") {
    const local = await findLocalAccountByIdentifier(ctx.data.database.db, parsed.identifier);
    if (!local || local.deletedAt || local.suspendedAt) return null;
    return local.alsoKnownAs.includes(origin.uri) ? local : null;
  }
  if (targetId.origin === new URL(ctx.data.config.origin).origin) return null;
  // Fresh, never the stored copy: the aliases must be what the target says now.
  const object = await lookupRemote(ctx, targetId.href);
  if (!isActor(object) || object.id?.href !== targetId.href) return null;
  if (!object.aliasIds.some((alias) => alias.href === origin.uri)) return null;
  const target = await upsertRemoteActor(ctx, object);
  if (!target || target.deletedAt || target.suspendedAt || target.movedToAccountId) return null;
  return target;
}
