/**
 * Inboxes: the personal ones (`/users/{identifier}/inbox`, the instance
 * actor's included) and the shared one (`/inbox`). Fedify verifies every
 * POST (HTTP signature, key owner = activity actor) and answers 401 before
 * anything here runs; verified activities go through the queue, one actor's
 * one at a time in the order they came (inbox_order.ts).
 *
 * Relationship activities (Follow, Accept, Reject, Undo, Block) and actor
 * Update/Delete are handled in inbox_relationships.ts; statuses (Create,
 * Update, Delete, Announce, Like, their Undo, votes, quote requests) in
 * inbox_statuses.ts; pins (Add, Remove to a featured collection) in
 * inbox_pins.ts; reports (Flag) in inbox_reports.ts; Move in inbox_move.ts. Other verified activities are logged and acknowledged.
 */
import type { Federation } from "@fedify/fedify";
import { Activity, AnnounceRequest, LikeRequest, ReplyRequest } from "@fedify/vocab";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { INSTANCE_ACTOR } from "../dispatchers/instance_actor.ts";
import { registerPinListeners } from "./pins.ts";
import {
  collectionAddRemove,
  handleFeatureRequest,
  withCollectionHandlers,
} from "./collections.ts";
import { registerReportListeners } from "./reports.ts";
import { registerMoveListener } from "./move.ts";
import { registerRelationshipListeners } from "./relationships.ts";
import { registerStatusListeners, sharedStatusHandlers } from "./statuses.ts";
import { LOCAL_PATHS } from "../../model/uris.ts";
import { onAnnounceRequest, onLikeRequest, onReplyRequest } from "./interaction_requests.ts";

const logger = getLogger(["rookery", "federation", "inbox"]);

/** Registers the inbox listeners. */
export function registerInboxListeners(federation: Federation<AppContext>): void {
  const listeners = federation
    .setInboxListeners(LOCAL_PATHS.inbox, LOCAL_PATHS.sharedInbox)
    // Fetches made while handling shared-inbox activities are signed by the
    // instance actor, so peers in secure mode answer them.
    .setSharedKeyDispatcher(() => ({ identifier: INSTANCE_ACTOR }))
    // No duplicate check in the request: with a queue, Fedify's request
    // reads a key only its queue-less path writes (the queued handler
    // checks and marks its own, which is the replay protection), so the
    // read was a round trip per delivery that could never hit.
    .withIdempotency(() => null);
  // Follow, Accept, Reject, Undo, Block, Update and Delete (of actors); Undo,
  // Update, Delete, Accept and Reject go on to the status handlers when not theirs.
  // Collections (FEP-7aa9: inbox/collections.ts) see Accept, Reject, Update and Delete first.
  registerRelationshipListeners(listeners, withCollectionHandlers(sharedStatusHandlers));
  // Create, Announce, Like and QuoteRequest.
  registerStatusListeners(listeners);
  // Add and Remove (collections, then pins).
  registerPinListeners(listeners, collectionAddRemove);
  // Flag (reports from other servers).
  registerReportListeners(listeners);
  // Move (accounts that move to another).
  registerMoveListener(listeners);
  listeners
    // GoToSocial's polite interaction requests (issue 34).
    .on(ReplyRequest, onReplyRequest)
    .on(LikeRequest, onLikeRequest)
    .on(AnnounceRequest, onAnnounceRequest)
    .on(Activity, async (ctx, activity) => {
      // A FeatureRequest reaches Fedify as a plain Activity (the guard's type shim).
      if (await handleFeatureRequest(ctx, activity)) return;
      logger.info("Received {type} {id} from {actor} (for {recipient}); not handled yet.", {
        type: activity.constructor.name,
        id: activity.id?.href,
        actor: activity.actorId?.href,
        recipient: ctx.recipient ?? "shared inbox",
      });
    })
    .onError((_ctx, error) => {
      logger.error("Inbox listener failed: {error}", { error });
    });
}
