/**
 * Delivers collections (FEP-7aa9): the Outbox methods of
 * actors/outbox/collections.ts.
 *
 * Stubs until the collections' federation lands (design 33 §4.1, engineer
 * 2): each logs the intent and sends nothing, so the client API's commands
 * can record their intents meanwhile.
 */
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { CollectionDeliveries } from "../../actors/outbox/collections.ts";

const logger = getLogger(["rookery", "federation", "outbox"]);

export function collectionDeliveries(_app: AppContext): CollectionDeliveries {
  const skip = (method: string, args: unknown) => {
    logger.debug("Collection delivery {method} not sent yet: {args}", { method, args });
    return Promise.resolve();
  };
  return {
    collectionCreated: (collectionId) => skip("collectionCreated", { collectionId }),
    collectionUpdated: (collectionId, updateStamp) =>
      skip("collectionUpdated", { collectionId, updateStamp }),
    collectionDeleted: (deleted) => skip("collectionDeleted", deleted),
    collectionItemAdded: (itemId) => skip("collectionItemAdded", { itemId }),
    collectionItemRemoved: (removed) => skip("collectionItemRemoved", removed),
    featureRequested: (itemId) => skip("featureRequested", { itemId }),
    featureRequestAnswered: (answer) => skip("featureRequestAnswered", answer),
    featureAuthorizationRevoked: (revoked) => skip("featureAuthorizationRevoked", revoked),
  };
}
