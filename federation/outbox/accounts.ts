/** Delivers activities about local accounts (Update and Delete of a Person). */
import { Move, PUBLIC_COLLECTION, Update } from "@fedify/vocab";
import { eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { AccountDeliveries } from "../../actors/outbox/accounts.ts";
import { accounts } from "../../db/schema.ts";
import { buildLocalActor } from "../actor.ts";
import { instanceContext } from "../lookup.ts";
import { getKeyPairs } from "../keys.ts";
import { enqueueJob } from "../jobs.ts";
import { moveFollowersJob } from "../move_followers.ts";

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
    async accountMoved(accountId, targetId, moveId) {
      const db = ctx.database.db;
      const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
      const [target] = await db.select().from(accounts).where(eq(accounts.id, targetId)).limit(1);
      if (!account || account.domain != null || account.deletedAt || !target) return;
      const fedCtx = instanceContext(ctx);
      const identifier = account.username;
      const actorUri = fedCtx.getActorUri(identifier);
      // Mastodon's shape: actor = object = the account, target = the new one, to its followers.
      const move = new Move({
        id: new URL(`${actorUri.href}#moves/${moveId}`),
        actor: actorUri,
        object: actorUri,
        target: new URL(target.uri),
        to: fedCtx.getFollowersUri(identifier),
      });
      await fedCtx.sendActivity({ identifier }, "followers", move, { preferSharedInbox: true });
      logger.info("Queued Move of {actor} to {target} for its followers.", {
        actor: actorUri.href,
        target: target.uri,
      });
    },
    async followersMoved(originId, targetId) {
      await enqueueJob(ctx, moveFollowersJob(originId, targetId, null), {
        orderingKey: `move:${originId}`,
      });
    },
  };
}
