/**
 * Registers every dispatcher and inbox listener on the federation object.
 * Each concern lives in its own module; this is the table of contents.
 */
import type { Federation } from "@fedify/fedify";
import type { AppContext } from "../context.ts";
import { registerActorDispatcher } from "./dispatchers/actor.ts";
import { installDiscoveryDocuments } from "./dispatchers/discovery.ts";
import { registerFollowCollections } from "./dispatchers/follow_collections.ts";
import { registerInboxListeners } from "./inbox/listeners.ts";
import { registerNodeInfo } from "./dispatchers/nodeinfo.ts";
import { registerNoteDispatcher } from "./objects/note.ts";
import { registerEmojiDispatcher } from "./objects/emoji.ts";
import { registerQuoteAuthorizationDispatcher } from "./objects/quote_authorization.ts";
import { registerInteractionAuthorizationDispatcher } from "./objects/interaction_authorization.ts";
import { registerOutboxCollection } from "./dispatchers/outbox_collection.ts";
import { registerProfileCollections } from "./dispatchers/profile_collections.ts";
import { registerRepliesCollection } from "./dispatchers/replies_collection.ts";
import { registerWebFingerLinks } from "./dispatchers/webfinger.ts";
import { installWireShape } from "./objects/wire_shape.ts";

/** Sets up actors, collections, inboxes, WebFinger, NodeInfo and host-meta. */
export function registerDispatchers(federation: Federation<AppContext>): void {
  registerActorDispatcher(federation);
  registerFollowCollections(federation);
  registerOutboxCollection(federation);
  registerProfileCollections(federation);
  registerNoteDispatcher(federation);
  registerRepliesCollection(federation);
  registerEmojiDispatcher(federation);
  registerQuoteAuthorizationDispatcher(federation);
  registerInteractionAuthorizationDispatcher(federation);
  registerInboxListeners(federation);
  registerWebFingerLinks(federation);
  registerNodeInfo(federation);
  installDiscoveryDocuments(federation);
  installWireShape(federation);
}
