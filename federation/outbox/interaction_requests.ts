/**
 * Answers of our authors to remote interactions that needed their approval
 * (issue 34, design §5.3), built from the decided `interaction_requests` row
 * and signed by the author of the status interacted with:
 *
 * - polite (the interaction came as GoToSocial's ReplyRequest, LikeRequest
 *   or AnnounceRequest): Accept or Reject whose `object` is the request,
 *   embedded by ids (what the requester matches on), to the requester only;
 * - impolite (a plain Create, Like or Announce from a server that knows no
 *   policies, Mastodon's): Accept or Reject whose `object` is the
 *   interaction's IRI and `target` the status. For replies and boosts it is
 *   addressed cc Public and the author's followers and delivered to them
 *   too, so that policy-aware third servers learn that the reply or boost
 *   stands (GoToSocial's broadcast); a Like's answer goes to its author only.
 *
 * An Accept carries the authorization's IRI as `result`
 * (federation/objects/interaction_authorization.ts serves it).
 *
 * The other way, when one of our accounts interacts with a remote status
 * whose policy wants approval (or proof), the interaction is held and the
 * polite request goes to the status's author only, the interaction embedded
 * as `instrument` (design §5.2); nothing else is sent until the Accept.
 */
import type { Context } from "@fedify/fedify";
import {
  Accept,
  type Activity,
  AnnounceRequest,
  Like,
  LikeRequest,
  PUBLIC_COLLECTION,
  type Recipient,
  Reject,
  ReplyRequest,
} from "@fedify/vocab";
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { accounts, follows, interactionRequests, statuses } from "../../db/schema/mod.ts";
import type { InteractionRequestDeliveries } from "../../actors/outbox/interaction_requests.ts";
import { instanceContext } from "../fetch/lookup.ts";
import { inboxColumns, recipientOf, remoteInbox } from "../objects/recipient.ts";
import { activityIds } from "../../model/uris.ts";
import { localNote } from "../objects/note.ts";
import { announceOf } from "./interactions.ts";

type RequestRow = typeof interactionRequests.$inferSelect;
type AccountRow = typeof accounts.$inferSelect;

/** The decided request, the local author who decided and the remote interacter; null otherwise. */
async function loadAnswer(app: AppContext, requestId: string) {
  const db = app.database.db;
  const [row] = await db.select({ request: interactionRequests, targetUri: statuses.uri })
    .from(interactionRequests)
    .innerJoin(statuses, eq(statuses.id, interactionRequests.targetStatusId))
    .where(eq(interactionRequests.id, requestId));
  if (!row || row.request.state === "pending") return null;
  const [author] = await db.select().from(accounts)
    .where(eq(accounts.id, row.request.targetAccountId));
  const [interacter] = await db.select(inboxColumns).from(accounts)
    .where(and(eq(accounts.id, row.request.accountId), remoteInbox));
  if (!author || author.domain != null || !interacter) return null;
  return { ...row, author, interacter: recipientOf(interacter) };
}

/** The request as it came, by ids: what the requester matches our answer on. */
function politeRequest(request: RequestRow, interacter: Recipient, targetUri: string) {
  const values = {
    id: new URL(request.requestUri!),
    actor: interacter.id!,
    object: new URL(targetUri),
    instrument: new URL(request.interactionUri),
  };
  if (request.type === "favourite") return new LikeRequest(values);
  if (request.type === "reblog") return new AnnounceRequest(values);
  return new ReplyRequest(values);
}

/** The remote followers of `author`, where a broadcast answer also goes. */
async function remoteFollowers(app: AppContext, author: AccountRow): Promise<Recipient[]> {
  const rows = await app.database.db.select(inboxColumns).from(follows)
    .innerJoin(accounts, eq(accounts.id, follows.accountId))
    .where(and(eq(follows.targetAccountId, author.id), remoteInbox));
  return rows.map(recipientOf);
}

/** The Accept or Reject of row `requestId` (see the module comment). */
async function interactionAnswered(app: AppContext, requestId: string): Promise<void> {
  const loaded = await loadAnswer(app, requestId);
  if (!loaded) return;
  const { request, targetUri, author, interacter } = loaded;
  const ctx = instanceContext(app);
  const accepted = request.state === "accepted";
  const polite = request.polite && request.requestUri != null;
  const broadcast = !polite && request.type !== "favourite";
  const common = {
    id: new URL(
      accepted
        ? activityIds.acceptInteraction(author.uri, request.id)
        : activityIds.rejectInteraction(author.uri, request.id),
    ),
    actor: new URL(author.uri),
    to: interacter.id!,
    ccs: broadcast ? [PUBLIC_COLLECTION, ctx.getFollowersUri(author.username)] : [],
    ...(polite
      ? { object: politeRequest(request, interacter, targetUri) }
      : { object: new URL(request.interactionUri), target: new URL(targetUri) }),
  };
  const activity = accepted && request.authorizationUri
    ? new Accept({ ...common, result: new URL(request.authorizationUri) })
    : new Reject(common);
  const recipients = [interacter, ...(broadcast ? await remoteFollowers(app, author) : [])];
  await sendSigned(ctx, author, recipients, activity, request.interactionUri);
}

/** Sends `activity`, signed by `signer`, once per recipient. */
async function sendSigned(
  ctx: Context<AppContext>,
  author: AccountRow,
  recipients: Recipient[],
  activity: Activity,
  orderingKey: string,
): Promise<void> {
  const seen = new Set<string>();
  const unique = recipients.filter((r) => !seen.has(r.id!.href) && seen.add(r.id!.href));
  await ctx.sendActivity({ identifier: author.username }, unique, activity, {
    preferSharedInbox: true,
    orderingKey,
  });
}

/** The pending request of a local account for a remote status, with the rows it names. */
async function loadRequest(app: AppContext, requestId: string) {
  const db = app.database.db;
  const [row] = await db.select({ request: interactionRequests, target: statuses })
    .from(interactionRequests)
    .innerJoin(statuses, eq(statuses.id, interactionRequests.targetStatusId))
    .where(and(eq(interactionRequests.id, requestId), eq(interactionRequests.state, "pending")));
  if (!row?.request.requestUri || row.target.local) return null;
  const [sender] = await db.select().from(accounts).where(eq(accounts.id, row.request.accountId));
  const [author] = await db.select().from(accounts)
    .where(and(eq(accounts.id, row.request.targetAccountId), remoteInbox));
  if (!sender || sender.domain != null || !author) return null;
  return { ...row, sender, author };
}

/** The held interaction itself, as the request's `instrument`. */
async function instrumentOf(
  ctx: Context<AppContext>,
  loaded: NonNullable<Awaited<ReturnType<typeof loadRequest>>>,
) {
  const { request, target, sender, author } = loaded;
  if (request.type === "favourite") {
    return new Like({
      id: new URL(request.interactionUri),
      actor: new URL(sender.uri),
      object: new URL(target.uri),
    });
  }
  if (!request.statusId) return null;
  const [status] = await ctx.data.database.db.select().from(statuses)
    .where(eq(statuses.id, request.statusId));
  if (!status || status.deletedAt) return null;
  if (request.type === "reply") return await localNote(ctx, status);
  return announceOf(
    ctx,
    {
      id: status.id,
      uri: status.uri,
      accountId: status.accountId,
      reblogOfId: target.id,
      visibility: status.visibility,
      createdAt: status.createdAt.toISOString(),
    },
    sender,
    target,
    author,
  );
}

/** Our polite request for a held interaction with a remote status (see the module comment). */
async function interactionRequested(app: AppContext, requestId: string): Promise<void> {
  const loaded = await loadRequest(app, requestId);
  if (!loaded) return;
  const { request, target, sender, author } = loaded;
  const ctx = instanceContext(app);
  const instrument = await instrumentOf(ctx, loaded);
  if (!instrument) return;
  const values = {
    id: new URL(request.requestUri!),
    actor: new URL(sender.uri),
    object: new URL(target.uri),
    instrument,
    to: new URL(author.uri),
  };
  const activity = request.type === "favourite"
    ? new LikeRequest(values)
    : request.type === "reblog"
    ? new AnnounceRequest(values)
    : new ReplyRequest(values);
  await sendSigned(ctx, sender, [recipientOf(author)], activity, request.interactionUri);
}

/** The interaction requests part of the outbox. */
export function interactionRequestDeliveries(app: AppContext): InteractionRequestDeliveries {
  return {
    interactionAnswered: (requestId) => interactionAnswered(app, requestId),
    interactionRequested: (requestId) => interactionRequested(app, requestId),
  };
}
