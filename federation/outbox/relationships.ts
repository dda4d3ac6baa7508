/**
 * Delivers relationship activities (Follow, Accept, Reject, Undo, Block)
 * and the Delete of a deleted local account, built from the snapshots the
 * commands hand over and the stored accounts rows, and queued with Fedify
 * (signed by the local account, retried by the queue).
 *
 * Only what crosses servers is sent: the sender must be a local account and
 * the recipient a remote one with an inbox; anything else is a no-op, so
 * commands never need to check.
 *
 * Activity ids are fragments of the sender's actor IRI
 * (`…/users/alice#follows/123`): unique, ours, and never dereferenced. A
 * remote Follow keeps its own id, which Accept and Reject quote back, as
 * Mastodon matches on it.
 */
import type { Context } from "@fedify/fedify";
import {
  Accept,
  Block,
  Delete,
  Follow,
  PUBLIC_COLLECTION,
  type Recipient,
  Reject,
  Undo,
} from "@fedify/vocab";
import { inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { accounts } from "../../db/schema/mod.ts";
import type {
  BlockSnapshot,
  DeletionRecipient,
  FollowSnapshot,
  RelationshipDeliveries,
} from "../../actors/outbox/relationships.ts";
import { instanceContext } from "../fetch/lookup.ts";
import { activityIds } from "../../model/uris.ts";
import { recipientOf } from "../objects/recipient.ts";

type AccountRow = typeof accounts.$inferSelect;

/** A local sender and a remote recipient, or null when the pair does not cross servers. */
async function crossing(
  app: AppContext,
  senderId: string,
  recipientId: string,
): Promise<{ sender: AccountRow; recipient: AccountRow; inbox: Recipient } | null> {
  const rows = await app.database.db.select().from(accounts)
    .where(inArray(accounts.id, [senderId, recipientId]));
  const sender = rows.find((r) => r.id === senderId);
  const recipient = rows.find((r) => r.id === recipientId);
  if (!sender || !recipient || sender.domain != null || recipient.domain == null) return null;
  if (!recipient.inboxUrl || recipient.deletedAt) return null;
  return { sender, recipient, inbox: recipientOf(recipient) };
}

/** The Follow a snapshot describes, with its stored id (or one of ours for old rows). */
function followObject(
  follow: FollowSnapshot,
  follower: AccountRow,
  target: AccountRow,
): Follow {
  return new Follow({
    id: new URL(follow.uri ?? activityIds.follow(follower.uri, follow.id)),
    actor: new URL(follower.uri),
    object: new URL(target.uri),
  });
}

async function send(
  ctx: Context<AppContext>,
  sender: AccountRow,
  recipient: Recipient | Recipient[],
  activity: Follow | Undo | Accept | Reject | Block | Delete,
  options: { preferSharedInbox?: boolean } = {},
): Promise<void> {
  await ctx.sendActivity({ identifier: sender.username }, recipient, activity, {
    preferSharedInbox: options.preferSharedInbox ?? false,
    // Activities between one local account and one remote one stay in order
    // (Follow then Undo, Block then Undo(Block)).
    orderingKey: sender.uri,
  });
}

/** The Undo of a Follow or Block its sender sent. */
function undoOf(sender: AccountRow, object: Follow | Block): Undo {
  return new Undo({ id: new URL(`${object.id!.href}/undo`), actor: new URL(sender.uri), object });
}

/** Accept or Reject of a remote account's Follow, from its local target. */
async function answerFollow(
  app: AppContext,
  follow: FollowSnapshot,
  answer: "accepts" | "rejects",
): Promise<void> {
  const pair = await crossing(app, follow.targetAccountId, follow.accountId);
  if (!pair) return;
  const ids = answer === "accepts" ? activityIds.acceptFollow : activityIds.rejectFollow;
  const values = {
    id: new URL(ids(pair.sender.uri, follow.id)),
    actor: new URL(pair.sender.uri),
    object: followObject(follow, pair.recipient, pair.sender),
  };
  const activity = answer === "accepts" ? new Accept(values) : new Reject(values);
  await send(instanceContext(app), pair.sender, pair.inbox, activity);
}

/** The relationship part of the outbox. */
export function relationshipDeliveries(app: AppContext): RelationshipDeliveries {
  const ctx = () => instanceContext(app);
  return {
    async followRequested(follow) {
      const pair = await crossing(app, follow.accountId, follow.targetAccountId);
      if (!pair) return;
      await send(ctx(), pair.sender, pair.inbox, followObject(follow, pair.sender, pair.recipient));
    },
    async followUndone(follow) {
      const pair = await crossing(app, follow.accountId, follow.targetAccountId);
      if (!pair) return;
      const object = followObject(follow, pair.sender, pair.recipient);
      await send(ctx(), pair.sender, pair.inbox, undoOf(pair.sender, object));
    },
    followAccepted: (follow) => answerFollow(app, follow, "accepts"),
    followRejected: (follow) => answerFollow(app, follow, "rejects"),
    async blocked(block) {
      const pair = await crossing(app, block.accountId, block.targetAccountId);
      if (!pair) return;
      await send(ctx(), pair.sender, pair.inbox, blockObject(block, pair.sender, pair.recipient));
    },
    async blockUndone(block) {
      const pair = await crossing(app, block.accountId, block.targetAccountId);
      if (!pair) return;
      const object = blockObject(block, pair.sender, pair.recipient);
      await send(ctx(), pair.sender, pair.inbox, undoOf(pair.sender, object));
    },
    async accountDeleted(accountId, recipients) {
      await deliverAccountDeletion(app, accountId, recipients);
    },
  };
}

function blockObject(block: BlockSnapshot, blocker: AccountRow, target: AccountRow): Block {
  return new Block({
    id: new URL(block.uri ?? activityIds.block(blocker.uri, block.id)),
    actor: new URL(blocker.uri),
    object: new URL(target.uri),
  });
}

/**
 * Delete(Person) for a deleted local account, to every server it had a
 * follower or a followee on (one request per shared inbox). Signed with the
 * account's key, which deletion keeps for exactly this.
 */
async function deliverAccountDeletion(
  app: AppContext,
  accountId: string,
  recipients: DeletionRecipient[],
): Promise<void> {
  if (recipients.length === 0) return;
  const [account] = await app.database.db.select().from(accounts)
    .where(inArray(accounts.id, [accountId]));
  if (!account || account.domain != null) return;
  const actor = new URL(account.uri);
  await ctx(app).sendActivity(
    { identifier: account.username },
    recipients.map(recipientOf),
    new Delete({
      id: new URL(activityIds.delete(account.uri)),
      actor,
      object: actor,
      to: PUBLIC_COLLECTION,
    }),
    { preferSharedInbox: true, orderingKey: account.uri },
  );
}

function ctx(app: AppContext): Context<AppContext> {
  return instanceContext(app);
}
