/**
 * Delivers interactions with statuses, built from the snapshots the commands
 * hand over and the stored rows, queued with Fedify (signed by the local
 * account, retried by the queue):
 * - Like and Undo(Like) go to the status's author, when remote (as Mastodon).
 * - Announce and Undo(Announce) go to the booster's remote followers and to
 *   the boosted status's remote author, one request per shared inbox.
 * - Add and Remove (pins) go to the remote followers; `target` is the
 *   account's featured collection.
 *
 * Addressing follows Mastodon's ActivityPub::TagManager for boosts: public →
 * to Public, cc the author and the followers; unlisted → to the followers, cc
 * Public and the author; private → to the followers, cc the author.
 *
 * Ids: a boost's Announce id is the boost row's uri (`…/statuses/<id>/activity`);
 * a Like is `<actor>#likes/<favourite id>`; undos append `/undo`; Add and
 * Remove are fragments of the actor naming the pin row.
 */
import type { Context } from "@fedify/fedify";
import {
  Add,
  Announce,
  Like,
  PUBLIC_COLLECTION,
  type Recipient,
  Remove,
  Undo,
} from "@fedify/vocab";
import { and, eq, inArray } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, follows, statuses } from "../../db/schema/mod.ts";
import type {
  FavouriteSnapshot,
  InteractionDeliveries,
  ReblogSnapshot,
} from "../../actors/outbox/interactions.ts";
import { instanceContext } from "../fetch/lookup.ts";
import { activityIds } from "../../model/uris.ts";
import { inboxColumns, recipientOf, remoteInbox } from "../objects/recipient.ts";

const logger = getLogger(["rookery", "federation", "outbox"]);

type AccountRow = typeof accounts.$inferSelect;
type StatusRow = typeof statuses.$inferSelect;

function toInstant(date: Date): Temporal.Instant {
  return Temporal.Instant.fromEpochMilliseconds(date.getTime());
}

function isRemoteInbox(row: AccountRow | undefined): row is AccountRow {
  return row != null && row.domain != null && row.inboxUrl != null && row.deletedAt == null;
}

/** The local sender, the status and its author; null when the sender is not local. */
async function load(
  app: AppContext,
  senderId: string,
  statusId: string,
): Promise<{ sender: AccountRow; status: StatusRow; author: AccountRow } | null> {
  const { db } = app.database;
  const [status] = await db.select().from(statuses).where(eq(statuses.id, statusId)).limit(1);
  if (!status) return null;
  const rows = await db.select().from(accounts)
    .where(inArray(accounts.id, [senderId, status.accountId]));
  const sender = rows.find((r) => r.id === senderId);
  const author = rows.find((r) => r.id === status.accountId);
  if (!sender || !author || sender.domain != null) return null;
  return { sender, status, author };
}

/** Every remote follower of a local account, as Fedify recipients. */
async function remoteFollowers(app: AppContext, accountId: string): Promise<Recipient[]> {
  const rows = await app.database.db.select(inboxColumns).from(follows)
    .innerJoin(accounts, eq(accounts.id, follows.accountId))
    .where(and(eq(follows.targetAccountId, accountId), remoteInbox));
  return rows.map(recipientOf);
}

async function send(
  ctx: Context<AppContext>,
  sender: AccountRow,
  recipients: Recipient[],
  activity: Like | Undo | Announce | Add | Remove,
): Promise<void> {
  if (recipients.length === 0) return;
  await ctx.sendActivity({ identifier: sender.username }, recipients, activity, {
    preferSharedInbox: true,
    // A Like and its Undo (an Announce and its Undo) must arrive in order.
    orderingKey: sender.uri,
  });
}

function likeOf(favourite: FavouriteSnapshot, sender: AccountRow, status: StatusRow): Like {
  return new Like({
    id: new URL(favourite.uri ?? activityIds.like(sender.uri, favourite.id)),
    actor: new URL(sender.uri),
    object: new URL(status.uri),
  });
}

/**
 * The Announce of a boost, addressed as Mastodon does (see the module
 * comment); the outbox collection serves the same document.
 */
export function announceOf(
  ctx: Context<AppContext>,
  reblog: ReblogSnapshot,
  sender: AccountRow,
  status: StatusRow,
  author: AccountRow,
): Announce {
  const followers = ctx.getFollowersUri(sender.username);
  const authorUri = new URL(author.uri);
  const addressing = reblog.visibility === "public"
    ? { tos: [PUBLIC_COLLECTION], ccs: [authorUri, followers] }
    : reblog.visibility === "unlisted"
    ? { tos: [followers], ccs: [PUBLIC_COLLECTION, authorUri] }
    : { tos: [followers], ccs: [authorUri] };
  return new Announce({
    id: new URL(reblog.uri),
    actor: new URL(sender.uri),
    object: new URL(status.uri),
    published: toInstant(new Date(reblog.createdAt)),
    ...addressing,
    // An approved boost names its authorization (GoToSocial reads `approvedBy`, 0.21 the typed one).
    ...(reblog.approvedByUri
      ? {
        approvedBy: new URL(reblog.approvedByUri),
        announceAuthorization: new URL(reblog.approvedByUri),
      }
      : {}),
  });
}

/** The Announce's audience: remote followers and the boosted status's remote author. */
async function announceAudience(
  app: AppContext,
  sender: AccountRow,
  author: AccountRow,
): Promise<Recipient[]> {
  const recipients = await remoteFollowers(app, sender.id);
  if (isRemoteInbox(author)) recipients.push(recipientOf(author));
  return recipients;
}

/** The interactions part of the outbox. */
export function interactionDeliveries(app: AppContext): InteractionDeliveries {
  const ctx = () => instanceContext(app);
  return {
    async statusFavourited(favourite) {
      const loaded = await load(app, favourite.accountId, favourite.statusId);
      if (!loaded || !isRemoteInbox(loaded.author)) return;
      const like = likeOf(favourite, loaded.sender, loaded.status);
      await send(ctx(), loaded.sender, [recipientOf(loaded.author)], like);
    },
    async statusUnfavourited(favourite) {
      const loaded = await load(app, favourite.accountId, favourite.statusId);
      if (!loaded || !isRemoteInbox(loaded.author)) return;
      const object = likeOf(favourite, loaded.sender, loaded.status);
      await send(
        ctx(),
        loaded.sender,
        [recipientOf(loaded.author)],
        new Undo({
          id: new URL(`${object.id!.href}/undo`),
          actor: new URL(loaded.sender.uri),
          object,
        }),
      );
    },
    async statusReblogged(reblog) {
      const loaded = await load(app, reblog.accountId, reblog.reblogOfId);
      if (!loaded) return;
      const { sender, status, author } = loaded;
      const announce = announceOf(ctx(), reblog, sender, status, author);
      await send(ctx(), sender, await announceAudience(app, sender, author), announce);
      logger.debug("Queued Announce {id}.", { id: reblog.uri });
    },
    async statusUnreblogged(reblog) {
      const loaded = await load(app, reblog.accountId, reblog.reblogOfId);
      if (!loaded) return;
      const { sender, status, author } = loaded;
      const object = announceOf(ctx(), reblog, sender, status, author);
      const undo = new Undo({
        id: new URL(`${reblog.uri}/undo`),
        actor: new URL(sender.uri),
        object,
        tos: object.toIds,
        ccs: object.ccIds,
      });
      await send(ctx(), sender, await announceAudience(app, sender, author), undo);
    },
    async statusPinned(pin) {
      const loaded = await load(app, pin.accountId, pin.statusId);
      if (!loaded) return;
      const { sender, status } = loaded;
      const add = new Add({
        id: new URL(activityIds.pin(sender.uri, pin.id)),
        actor: new URL(sender.uri),
        object: new URL(status.uri),
        target: ctx().getFeaturedUri(sender.username),
      });
      await send(ctx(), sender, await remoteFollowers(app, sender.id), add);
    },
    async statusUnpinned(pin) {
      const loaded = await load(app, pin.accountId, pin.statusId);
      if (!loaded) return;
      const { sender, status } = loaded;
      const remove = new Remove({
        id: new URL(activityIds.unpin(sender.uri, pin.id)),
        actor: new URL(sender.uri),
        object: new URL(status.uri),
        target: ctx().getFeaturedUri(sender.username),
      });
      await send(ctx(), sender, await remoteFollowers(app, sender.id), remove);
    },
  };
}
