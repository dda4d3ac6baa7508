/**
 * Inbox listeners for Add and Remove: a remote actor pinning a post to its
 * featured collection or unpinning it (Mastodon's ActivityPub::Activity::Add
 * and Remove), applied with the same `pin` and `unpin` commands the API
 * uses, so GET /api/v1/accounts/:id/statuses?pinned=true shows remote pins.
 *
 * Fedify has verified that the signature's key belongs to the activity's
 * actor. Every other claim must be about that actor too: the target must be
 * the sender's own featured collection (as its actor document names it),
 * the object a status on the sender's server written by the sender; an Add
 * for someone else's collection, of someone else's post or of anything but
 * a status is ignored. An unknown status is fetched (signed) only from the
 * sender's server. Add and Remove of anything else (featured hashtags,
 * other collections) are acknowledged and ignored.
 */
import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { type Activity, Add, Remove } from "@fedify/vocab";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { NotFoundError, ValidationError } from "../../model/errors.ts";
import { pin, unpin } from "../../actors/interactions/pins.ts";
import { accountForActorUri, type AccountRow } from "../remote/accounts.ts";
import { findStatusByUri, resolveRemoteStatus } from "../remote/statuses.ts";
import { FetchBudget } from "../fetch/budget.ts";
import type { Handler } from "./relationships.ts";
import { sameOrigin } from "../fetch/trust.ts";

const logger = getLogger(["rookery", "federation", "inbox", "pins"]);

/** Handlers that see Add and Remove first; true when they took the activity. */
export interface AddRemoveHandlers {
  add?: Handler<Add>;
  remove?: Handler<Remove>;
}

/**
 * Registers Add and Remove; `first` (collections, federation/inbox/collections.ts)
 * sees each before the pins do.
 */
export function registerPinListeners(
  listeners: InboxListenerSetters<AppContext>,
  first: AddRemoveHandlers = {},
): void {
  listeners
    .on(Add, async (ctx, add) => {
      if (!await first.add?.(ctx, add)) await onAdd(ctx, add);
    })
    .on(Remove, async (ctx, remove) => {
      if (!await first.remove?.(ctx, remove)) await onRemove(ctx, remove);
    });
}

/**
 * The remote sender and the status IRI when the activity is about the
 * sender's own featured collection; null otherwise.
 */
async function featuredChange(
  ctx: InboxContext<AppContext>,
  activity: Add | Remove,
): Promise<{ sender: AccountRow; objectUri: string } | null> {
  if (!activity.actorId) return null;
  const sender = await accountForActorUri(ctx, activity.actorId).catch(() => null);
  if (!sender || sender.domain == null || sender.deletedAt || sender.suspendedAt) return null;
  const target = activity.targetId?.href;
  const objectUri = activity.objectId?.href;
  if (!target || !objectUri) return null;
  if (!sender.featuredUrl || target !== sender.featuredUrl) {
    ignored(activity, "its target is not the sender's featured collection");
    return null;
  }
  if (!sameOrigin(objectUri, sender.uri)) {
    ignored(activity, "its object is not on the sender's server");
    return null;
  }
  return { sender, objectUri };
}

function ignored(activity: Activity, reason: string): void {
  logger.info("Ignored {type} {id} by {actor}: {reason}", {
    type: activity.constructor.name,
    id: activity.id?.href,
    actor: activity.actorId?.href,
    reason,
  });
}

/** Add of one of the sender's statuses to its featured collection: a pin. */
async function onAdd(ctx: InboxContext<AppContext>, add: Add): Promise<void> {
  const change = await featuredChange(ctx, add);
  if (!change) return;
  const { sender, objectUri } = change;
  // Not a status (a Hashtag, an actor…) or not fetchable: resolve gives null.
  const status = await resolveRemoteStatus(ctx, objectUri, FetchBudget.of(ctx.data));
  if (!status || status.accountId !== sender.id) {
    ignored(add, "its object is not a status by the sender");
    return;
  }
  await refusalsIgnored(add, () => pin(ctx.data, sender.id, status.id));
}

/** Remove of one of the sender's statuses from its featured collection: an unpin. */
async function onRemove(ctx: InboxContext<AppContext>, remove: Remove): Promise<void> {
  const change = await featuredChange(ctx, remove);
  if (!change) return;
  const { sender, objectUri } = change;
  const status = await findStatusByUri(ctx.data, objectUri);
  if (!status || status.accountId !== sender.id) return;
  await refusalsIgnored(remove, () => unpin(ctx.data, sender.id, status.id));
}

/** The pin commands refuse a boost or a direct status: nothing to do then. */
async function refusalsIgnored(activity: Activity, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ValidationError || error instanceof NotFoundError) {
      ignored(activity, error.message);
      return;
    }
    throw error;
  }
}
