/** Delivers activities about local accounts (Update and Delete of a Person). */
import { PUBLIC_COLLECTION, Update } from "@fedify/vocab";
import { eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { AccountDeliveries } from "../../actors/outbox/accounts.ts";
import { accounts } from "../../db/schema.ts";
import { buildLocalActor } from "../actor.ts";
import { instanceContext } from "../lookup.ts";
import { getKeyPairs } from "../keys.ts";

const logger = getLogger(["rookery", "federation", "outbox"]);

export function accountDeliveries(ctx: AppContext): AccountDeliveries {
  return {
    async accountCreated(accountId) {
      await getKeyPairs(ctx.database, accountId);
    },
    async accountUpdated(accountId, updateId) {
      const [account] = await ctx.database.db.select().from(accounts)
        .where(eq(accounts.id, accountId)).limit(1);
      // Remote and deleted accounts have no profile of ours to announce.
      if (!account || account.domain != null || account.deletedAt) return;
      const fedCtx = instanceContext(ctx);
      const actor = await buildLocalActor(fedCtx, account);
      const identifier = account.username;
      // Mastodon's id shape (the actor and a fragment), named by the intent:
      // a relayed-twice Update keeps its id, so receivers drop the copy.
      const update = new Update({
        id: new URL(`${actor.id!.href}#updates/${updateId}`),
        actor: actor.id,
        to: PUBLIC_COLLECTION,
        object: actor,
      });
      // Fedify enumerates the followers collection and groups by shared inbox.
      await fedCtx.sendActivity({ identifier }, "followers", update, { preferSharedInbox: true });
      logger.debug("Queued Update of {actor} for its followers.", { actor: actor.id?.href });
    },
  };
}
