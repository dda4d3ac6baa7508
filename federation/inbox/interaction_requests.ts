/**
 * Interaction requests, inbound (issue 34, design §5.3): GoToSocial's polite
 * ReplyRequest, LikeRequest and AnnounceRequest for one of our statuses.
 * The request's `instrument` is the interaction (the reply Note, the Like,
 * the Announce): embedded by the sender's server, else fetched from it. It
 * must be the sender's, aim at the request's `object`, and claim no
 * approval (GoToSocial refuses requests that do). The interaction is stored
 * by the same command a plain Create, Like or Announce goes through, which
 * decides the policy and holds it when it needs approval; then
 * actors/interactions/remote_requests.ts records the outcome and promises
 * the polite Accept or Reject.
 */
import type { InboxContext } from "@fedify/fedify";
import {
  Announce,
  type AnnounceRequest,
  Like,
  type LikeRequest,
  type Object as APObject,
  type ReplyRequest,
} from "@fedify/vocab";
import { and, eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { favourites } from "../../db/schema/mod.ts";
import { NotPermittedError } from "../../actors/relationships/follow_rows.ts";
import { favourite } from "../../actors/interactions/favourites.ts";
import { reblog } from "../../actors/interactions/reblogs.ts";
import {
  type RemoteRequest,
  settleRemoteRequest,
  wasRejected,
} from "../../actors/interactions/remote_requests.ts";
import type { AccountRow } from "../remote/accounts.ts";
import { findStatusByUri, rawJson, storeRemoteStatus } from "../remote/statuses.ts";
import { isStatusObject } from "../objects/remote_status.ts";
import { sameOrigin } from "../fetch/trust.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { lookupRemote } from "../fetch/lookup.ts";
import { embeddedJson, inboxJson } from "../dialects/received.ts";
import { boostVisibility, remoteSender } from "./statuses.ts";
import { claimOf } from "../objects/interaction_policy.ts";

const logger = getLogger(["rookery", "federation", "inbox", "interaction_requests"]);

type AnyRequest = ReplyRequest | LikeRequest | AnnounceRequest;
type StatusRow = NonNullable<Awaited<ReturnType<typeof findStatusByUri>>>;

/** The request's instrument: embedded by the sender's server, else fetched. */
async function instrumentOf(
  ctx: InboxContext<AppContext>,
  request: AnyRequest,
  budget: FetchBudget,
  sender: AccountRow,
): Promise<APObject | null> {
  try {
    const embedded = await request.getInstrument({
      documentLoader: () => Promise.reject(new Error("not embedded")),
      suppressError: true,
    }).catch(() => null);
    if (embedded?.id && sameOrigin(embedded.id, sender.uri)) return embedded;
    const id = request.instrumentId ?? embedded?.id;
    return id ? await lookupRemote(ctx, id.href, budget) : null;
  } catch (error) {
    logger.info("Could not read the instrument of {id}: {error}", { id: request.id?.href, error });
    return null;
  }
}

/** What every request must be: the sender's, for a local status, with a fair instrument. */
async function readRequest(ctx: InboxContext<AppContext>, request: AnyRequest) {
  const sender = await remoteSender(ctx, request);
  if (!sender || !request.id || !request.objectId || !sameOrigin(request.id, sender.uri)) {
    return null;
  }
  const target = await findStatusByUri(ctx.data, request.objectId.href);
  if (!target?.local || target.reblogOfId || target.deletedAt) return null;
  const budget = FetchBudget.of(ctx.data);
  const instrument = await instrumentOf(ctx, request, budget, sender);
  if (!instrument?.id || !sameOrigin(instrument.id, sender.uri)) return null;
  if (claimOf(instrument)) {
    logger.info("Refused {id}: its interaction already claims an approval.", {
      id: request.id.href,
    });
    return null;
  }
  if (await wasRejected(ctx.data.database.db, instrument.id.href)) return null;
  return { sender, target, instrument, instrumentId: instrument.id.href, budget };
}

/** Records the outcome (see actors/interactions/remote_requests.ts). */
async function settle(
  ctx: InboxContext<AppContext>,
  request: AnyRequest,
  parts: { sender: AccountRow; target: StatusRow; instrumentId: string },
  type: RemoteRequest["type"],
  stored: RemoteRequest["stored"],
) {
  await settleRemoteRequest(ctx.data, {
    type,
    targetStatusId: parts.target.id,
    targetAccountId: parts.target.accountId,
    accountId: parts.sender.id,
    interactionUri: parts.instrumentId,
    requestUri: request.id!.href,
    stored,
  });
}

/** Runs a command that refuses a forbidden interaction with NotPermittedError; null then. */
async function unlessForbidden<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof NotPermittedError) return null;
    throw error;
  }
}

/** ReplyRequest: the instrument is the reply Note. */
export async function onReplyRequest(ctx: InboxContext<AppContext>, request: ReplyRequest) {
  const parts = await readRequest(ctx, request);
  if (!parts) return;
  const { sender, target, instrument, budget } = parts;
  if (
    !isStatusObject(instrument) || instrument.attributionId?.href !== sender.uri ||
    instrument.replyTargetId?.href !== target.uri
  ) return;
  const raw = embeddedJson(inboxJson(ctx, request), "instrument", parts.instrumentId) ??
    await rawJson(instrument);
  const reply = await storeRemoteStatus(ctx, instrument, {
    depth: 0,
    raw,
    expectedActor: sender.uri,
    sender,
    budget,
  });
  await settle(ctx, request, parts, "reply", reply ? { statusId: reply.id } : null);
}

/** LikeRequest: the instrument is the Like. */
export async function onLikeRequest(ctx: InboxContext<AppContext>, request: LikeRequest) {
  const parts = await readRequest(ctx, request);
  if (!parts) return;
  const { sender, target, instrument, instrumentId } = parts;
  if (
    !(instrument instanceof Like) || instrument.actorId?.href !== sender.uri ||
    instrument.objectId?.href !== target.uri
  ) return;
  const liked = await unlessForbidden(() =>
    favourite(ctx.data, sender.id, target.id, { uri: instrumentId })
  );
  const [row] = liked
    ? await ctx.data.database.db.select({ id: favourites.id }).from(favourites)
      .where(and(eq(favourites.accountId, sender.id), eq(favourites.statusId, target.id)))
    : [];
  await settle(ctx, request, parts, "favourite", row ? { favouriteId: row.id } : null);
}

/** AnnounceRequest: the instrument is the Announce. */
export async function onAnnounceRequest(ctx: InboxContext<AppContext>, request: AnnounceRequest) {
  const parts = await readRequest(ctx, request);
  if (!parts) return;
  const { sender, target, instrument, instrumentId } = parts;
  if (
    !(instrument instanceof Announce) || instrument.actorId?.href !== sender.uri ||
    instrument.objectId?.href !== target.uri
  ) return;
  const boosted = await unlessForbidden(() =>
    reblog(ctx.data, sender.id, target.id, {
      visibility: boostVisibility(instrument),
      remote: {
        uri: instrumentId,
        published: instrument.published
          ? new Date(instrument.published.epochMilliseconds)
          : undefined,
      },
    })
  );
  await settle(ctx, request, parts, "reblog", boosted ? { statusId: boosted.boost.id } : null);
}
