/** Delivers activities about local accounts (Update and Delete of a Person). */
import { Move, PUBLIC_COLLECTION } from "@fedify/vocab";
import { eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { AccountDeliveries } from "../../actors/outbox/accounts.ts";
import { accounts } from "../../db/schema/mod.ts";
import { buildLocalActor } from "../dispatchers/actor.ts";
import { carryTerms, WireUpdate } from "../objects/mastodon_terms.ts";
import { instanceContext } from "../fetch/lookup.ts";
import { getKeyPairs } from "../dispatchers/keys.ts";
import { accountReach } from "../../db/queries/account_reach.ts";
import { recipientOf } from "../objects/recipient.ts";
import { activityIds } from "../../model/uris.ts";

const logger = getLogger(["rookery", "federation", "outbox"]);

export function accountDeliveries(ctx: AppContext): AccountDeliveries {
  return {
    async accountCreated(accountId) {
      await getKeyPairs(ctx, accountId);
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
      // Wire*: the actor's terms Fedify lacks go with it (objects/mastodon_terms.ts).
      const update = carryTerms(
        new WireUpdate({
          id: new URL(activityIds.update(actor.id!.href, updateId)),
          actor: actor.id,
          to: PUBLIC_COLLECTION,
          object: actor,
        }),
        actor,
      );
      // Mastodon's UpdateDistributionWorker sends to AccountReachFinder's
      // inboxes, not only the followers': a suspension must reach the servers
      // the account recently mentioned or interacted with too.
      const reach = await accountReach(ctx.database.db, account.id);
      if (reach.length === 0) return;
      await fedCtx.sendActivity({ identifier }, reach.map(recipientOf), update, {
        preferSharedInbox: true,
      });
      logger.debug("Queued Update of {actor} for {count} inboxes.", {
        actor: actor.id?.href,
        count: reach.length,
      });
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
        id: new URL(activityIds.move(actorUri.href, moveId)),
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
  };
}
