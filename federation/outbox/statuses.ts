/**
 * Delivers local statuses: Create, Update and Delete of the Note (or
 * Question), built from the stored rows with the statuses core's builder
 * (federation/objects/note.ts) plus the thread, quote policy and quote
 * (federation/objects/note_extras.ts), and queued with Fedify (signed by the
 * author; Fedify adds the LD signature peers need to forward replies).
 *
 * Audience (Mastodon's ActivityPub::DistributionWorker and StatusReachFinder):
 * - public, unlisted and private: the author's remote followers, one request
 *   per shared inbox;
 * - every visibility: the remote accounts the status mentions;
 * - not direct: the remote author of the replied-to status and of the quoted
 *   status; for Update and Delete also the remote accounts that boosted it.
 * The addressing (to/cc) is the Note's own, as note.ts writes it.
 *
 * A deleted status keeps its row and its mentions, so the Delete goes to
 * the same audience as the Create. Quote posts of remote posts are followed
 * by a QuoteRequest to the quoted author (FEP-044f); revoking a stamp we
 * issued sends Delete of the stamp; a remote QuoteRequest for one of ours
 * is answered with Accept (the stamp as `result`) or Reject.
 */
import type { Context } from "@fedify/fedify";
import {
  Accept,
  type Activity,
  Delete,
  QuoteAuthorization,
  QuoteRequest,
  type Recipient,
  Reject,
  Tombstone,
} from "@fedify/vocab";
import { and, eq, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, follows, mentions, quotes, statuses } from "../../db/schema/mod.ts";
import { preparedQuery } from "../../db/queries/prepared.ts";
import type {
  QuoteRequestAnswer,
  QuoteRevocationSnapshot,
  StatusFederationDeliveries,
} from "../../actors/outbox/statuses.ts";
import { instanceContext } from "../fetch/lookup.ts";
import { localNote } from "../objects/note.ts";
import { carryTerms, WireCreate, WireUpdate } from "../objects/mastodon_terms.ts";
import { inboxColumns, recipientOf, remoteInbox as remoteLive } from "../objects/recipient.ts";
import { activityIds } from "../../model/uris.ts";

const logger = getLogger(["rookery", "federation", "outbox", "statuses"]);

type AccountRow = typeof accounts.$inferSelect;
type StatusRow = typeof statuses.$inferSelect;

function instant(date: Date): Temporal.Instant {
  return Temporal.Instant.fromEpochMilliseconds(date.getTime());
}

/** A local, original (not a boost) status and its author; null otherwise. */
async function loadLocal(
  app: AppContext,
  statusId: string,
): Promise<{ status: StatusRow; author: AccountRow } | null> {
  const [row] = await preparedQuery(
    app.database.db,
    "outbox_local_status",
    (db) =>
      db.select({ status: statuses, author: accounts }).from(statuses)
        .innerJoin(accounts, eq(accounts.id, statuses.accountId))
        .where(eq(statuses.id, sql.placeholder("id"))).limit(1),
  ).execute({ id: statusId });
  if (!row || !row.status.local || row.status.reblogOfId || row.author.domain != null) return null;
  return row;
}

/** The author of another status, when remote and reachable. */
async function remoteAuthorOf(app: AppContext, statusId: string | null): Promise<Recipient[]> {
  if (!statusId) return [];
  const rows = await app.database.db.select(inboxColumns).from(statuses)
    .innerJoin(accounts, eq(accounts.id, statuses.accountId))
    .where(and(eq(statuses.id, statusId), remoteLive));
  return rows.map(recipientOf);
}

/** Who receives activities about `status` (see the module comment). */
async function audience(
  app: AppContext,
  status: StatusRow,
  options: { boosters: boolean },
): Promise<Recipient[]> {
  const db = app.database.db;
  const recipients: Recipient[] = [];
  // The mentioned accounts and (unless direct) the author's followers, in
  // one statement: every post asks, and most have no remote recipient.
  const mentionedAndFollowers = await preparedQuery(
    db,
    "outbox_status_inboxes",
    (db) =>
      db.select(inboxColumns).from(mentions)
        .innerJoin(accounts, eq(accounts.id, mentions.accountId))
        .where(and(eq(mentions.statusId, sql.placeholder("id")), remoteLive))
        .unionAll(
          // One follower per inbox: Fedify sends one request per (shared)
          // inbox anyway, and a hundred thousand followers on a thousand
          // servers are a thousand rows, not a hundred thousand recipients.
          db.selectDistinctOn(
            [sql`coalesce(${accounts.sharedInboxUrl}, ${accounts.inboxUrl})`],
            inboxColumns,
          ).from(follows)
            .innerJoin(accounts, eq(accounts.id, follows.accountId))
            .where(and(
              eq(follows.targetAccountId, sql.placeholder("author")),
              sql`${sql.placeholder("followers")}::boolean`,
              remoteLive,
            )),
        ),
  ).execute({
    id: status.id,
    author: status.accountId,
    followers: status.visibility !== "direct",
  });
  recipients.push(...mentionedAndFollowers.map(recipientOf));
  if (status.visibility === "direct") return recipients;
  recipients.push(...await remoteAuthorOf(app, status.inReplyToId));
  recipients.push(...await remoteAuthorOf(app, status.quotedStatusId));
  if (options.boosters) {
    const boosters = await db.selectDistinct(inboxColumns).from(statuses)
      .innerJoin(accounts, eq(accounts.id, statuses.accountId))
      .where(and(eq(statuses.reblogOfId, status.id), remoteLive));
    recipients.push(...boosters.map(recipientOf));
  }
  // One entry per actor; Fedify then sends one request per (shared) inbox.
  const seen = new Set<string>();
  return recipients.filter((r) => !seen.has(r.id!.href) && seen.add(r.id!.href));
}

/** The Note (or Question) of a local status, as the object dispatcher serves it. */
async function send(
  ctx: Context<AppContext>,
  author: AccountRow,
  recipients: Recipient[],
  activity: Activity,
  orderingKey: string,
): Promise<void> {
  if (recipients.length === 0) return;
  await ctx.sendActivity({ identifier: author.username }, recipients, activity, {
    preferSharedInbox: true,
    // Create, Update and Delete of one status must arrive in order.
    orderingKey,
  });
}

/** Sends the QuoteRequest of a quote post whose quoted post is remote and still pending. */
async function requestQuoteApproval(
  app: AppContext,
  ctx: Context<AppContext>,
  status: StatusRow,
  author: AccountRow,
): Promise<void> {
  const db = app.database.db;
  const [quote] = await db.select().from(quotes).where(eq(quotes.statusId, status.id));
  if (!quote?.quotedStatusId || quote.state !== "pending") return;
  const [quoted] = await db.select({ uri: statuses.uri, local: statuses.local }).from(statuses)
    .where(eq(statuses.id, quote.quotedStatusId));
  if (!quoted || quoted.local) return;
  const target = await remoteAuthorOf(app, quote.quotedStatusId);
  if (target.length === 0) return;
  const id = `${status.uri}/quote_request`;
  await db.update(quotes).set({ activityUri: id }).where(eq(quotes.id, quote.id));
  const request = new QuoteRequest({
    id: new URL(id),
    actor: new URL(author.uri),
    object: new URL(quoted.uri),
    instrument: new URL(status.uri),
    tos: [target[0].id!],
  });
  await send(ctx, author, target, request, status.uri);
}

/** Create(Note) of a new local status, then a QuoteRequest when it quotes a remote post. */
async function statusCreated(app: AppContext, statusId: string): Promise<void> {
  const loaded = await loadLocal(app, statusId);
  if (!loaded || loaded.status.deletedAt) return;
  const { status, author } = loaded;
  // The audience first: with no remote recipient (a server of local
  // followers) and no quote to request approval for, there is nothing to
  // send, and building the Note (several queries and vocab objects) would
  // be wasted on every post.
  const recipients = await audience(app, status, { boosters: false });
  if (recipients.length === 0 && !status.quotedStatusId) return;
  const ctx = instanceContext(app);
  const note = await localNote(ctx, status);
  if (!note) return;
  // Wire*: the Note's contentMap, blurhash and focalPoint (mastodon_terms.ts).
  const create = carryTerms(
    new WireCreate({
      id: new URL(activityIds.activity(status.uri)),
      actor: new URL(author.uri),
      object: note,
      tos: note.toIds,
      ccs: note.ccIds,
      published: instant(status.createdAt),
    }),
    note,
  );
  await send(ctx, author, recipients, create, status.uri);
  await requestQuoteApproval(app, ctx, status, author);
  logger.debug("Queued Create {id}.", { id: status.uri });
}

/** Update(Note) of an edited local status (or one whose quote was approved). */
async function statusUpdated(app: AppContext, statusId: string, updateId: string): Promise<void> {
  const loaded = await loadLocal(app, statusId);
  if (!loaded || loaded.status.deletedAt) return;
  const { status, author } = loaded;
  const ctx = instanceContext(app);
  const note = await localNote(ctx, status);
  if (!note) return;
  const updated = status.editedAt ?? status.createdAt;
  const update = carryTerms(
    new WireUpdate({
      // Named by the intent, not by the time of sending: a relayed-twice
      // Update keeps its id (receivers drop the copy), and an Update that
      // is no edit (an approved quote) still differs from the last edit's.
      id: new URL(activityIds.update(status.uri, updateId)),
      actor: new URL(author.uri),
      object: note,
      tos: note.toIds,
      ccs: note.ccIds,
      updated: instant(updated),
    }),
    note,
  );
  await send(ctx, author, await audience(app, status, { boosters: true }), update, status.uri);
}

/**
 * Delete of a deleted local status, to the audience of its Create and its
 * boosters; of a reply held for approval, to the parent's author only.
 */
async function statusDeleted(app: AppContext, statusId: string): Promise<void> {
  const loaded = await loadLocal(app, statusId);
  if (!loaded) return;
  const { status, author } = loaded;
  const ctx = instanceContext(app);
  // A reply held for approval went only to the remote parent's author, in our ReplyRequest.
  const held = status.pendingApproval ? await remoteAuthorOf(app, status.inReplyToId) : null;
  if (held?.length === 0) return;
  // The addressing of the Note as it was; the row and its mentions are kept.
  const note = held ? null : await localNote(ctx, status);
  const del = new Delete({
    id: new URL(activityIds.delete(status.uri)),
    actor: new URL(author.uri),
    object: new Tombstone({ id: new URL(status.uri) }),
    tos: held ? held.map((r) => r.id!) : note?.toIds ?? [],
    ccs: note?.ccIds ?? [],
  });
  const recipients = held ?? await audience(app, status, { boosters: true });
  await send(ctx, author, recipients, del, status.uri);
}

/** Accept (the stamp as `result`) or Reject of a remote QuoteRequest, to the requester. */
async function quoteRequestAnswered(app: AppContext, answer: QuoteRequestAnswer): Promise<void> {
  const loaded = await loadLocal(app, answer.quotedStatusId);
  if (!loaded) return;
  const { status, author } = loaded;
  const [requester] = await app.database.db.select().from(accounts)
    .where(and(eq(accounts.id, answer.requesterId), remoteLive));
  if (!requester) return;
  const recipient = recipientOf(requester);
  // The request as it came, by ids: what the requester matches our answer on.
  const request = new QuoteRequest({
    id: new URL(answer.requestUri),
    actor: new URL(requester.uri),
    object: new URL(status.uri),
    instrument: new URL(answer.instrumentUri),
  });
  const activity = answer.stampUri
    ? new Accept({
      id: new URL(activityIds.acceptQuote(answer.stampUri)),
      actor: new URL(author.uri),
      object: request,
      result: new URL(answer.stampUri),
      to: recipient.id!,
    })
    : new Reject({
      id: new URL(activityIds.rejectQuote(author.uri, answer.requestUri)),
      actor: new URL(author.uri),
      object: request,
      to: recipient.id!,
    });
  await send(instanceContext(app), author, [recipient], activity, answer.requestUri);
}

/** Delete of a QuoteAuthorization stamp we issued, to the quoting status's author. */
async function quoteRevoked(app: AppContext, quote: QuoteRevocationSnapshot): Promise<void> {
  const loaded = await loadLocal(app, quote.quotedStatusId);
  if (!loaded) return;
  const { author } = loaded;
  const [quoting] = await app.database.db.select().from(statuses)
    .where(eq(statuses.id, quote.statusId));
  if (!quoting || quoting.local) return;
  const stamp = quote.approvalUri ?? activityIds.quoteStamp(author.uri, quote.id);
  const recipients = await remoteAuthorOf(app, quoting.id);
  const del = new Delete({
    id: new URL(activityIds.delete(stamp)),
    actor: new URL(author.uri),
    object: new QuoteAuthorization({ id: new URL(stamp) }),
    tos: recipients.map((r) => r.id!),
  });
  await send(instanceContext(app), author, recipients, del, stamp);
}

/** The statuses part of the outbox. */
export function statusDeliveries(app: AppContext): StatusFederationDeliveries {
  return {
    statusCreated: (statusId) => statusCreated(app, statusId),
    statusUpdated: (statusId, updateId) => statusUpdated(app, statusId, updateId),
    statusDeleted: (statusId) => statusDeleted(app, statusId),
    quoteRequestAnswered: (answer) => quoteRequestAnswered(app, answer),
    quoteRevoked: (quote) => quoteRevoked(app, quote),
  };
}
