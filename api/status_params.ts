/**
 * What the API's status routes and the web app's composer read from a
 * request's parameters (`Params`, api/params.ts): the new status, its poll,
 * its scheduled time, the idempotency key; and the status errors as API
 * errors. One reader for both, so a page accepts exactly what a client may
 * send.
 */
import { ApiError, validationFailed } from "./errors.ts";
import type { Params } from "./params.ts";
import {
  readBoolean,
  readInt,
  readPermittedObject,
  readPermittedObjectList,
  readString,
  readStringArray,
} from "./readers.ts";
import { isId } from "../db/ids.ts";
import type { LocalStatusInput } from "../actors/statuses/create.ts";
import type { EditStatusInput, MediaAttributeInput } from "../actors/statuses/edit.ts";
import { QUOTE_NOT_FOUND, REPLY_NOT_FOUND, StatusError } from "../actors/statuses/errors.ts";
import {
  checkQuotePolicy,
  checkVisibility,
  type PollInput,
} from "../actors/statuses/validation.ts";
import { readInteractionPolicy } from "./entities/interaction_policy.ts";
import { resolveRemoteAccount } from "../federation/remote/accounts.ts";
import type { AppContext } from "../context.ts";

/** Idempotency keys longer than this are refused (they are stored). */
export const MAX_IDEMPOTENCY_KEY = 512;

/** A status command's refusal as the API's error; anything else unchanged. */
export function statusErrorOf(error: unknown): unknown {
  return error instanceof StatusError ? new ApiError(error.status, error.message) : error;
}

/** A poll's parameters (`poll[options][]`, `poll[expires_in]`…), or undefined without one. */
export function readPoll(p: Params): PollInput | undefined {
  const poll = readPermittedObject(p, "poll");
  if (!poll) return undefined;
  const options = readStringArray(poll, "options", { maxItems: 1000 });
  const expiresIn = readInt(poll, "expires_in");
  if (!options && expiresIn === undefined) return undefined;
  if (!options) throw validationFailed("Poll options must have more than one item");
  if (expiresIn === undefined) throw validationFailed("Poll expires at can't be blank");
  return {
    options,
    expiresIn,
    multiple: readBoolean(poll, "multiple") ?? false,
    hideTotals: readBoolean(poll, "hide_totals") ?? false,
  };
}

/** A time parameter (`scheduled_at`), or undefined; 422 when it is not a time. */
export function readScheduledAt(p: Params, key = "scheduled_at"): Date | undefined {
  const raw = readString(p, key);
  if (raw === undefined) return undefined;
  const date = new Date(raw);
  if (Number.isNaN(date.getTime())) throw validationFailed("Scheduled at is invalid");
  return date;
}

/** How a post's remote mentions are looked up (WebFinger, then stored). */
export function remoteAccountResolver(ctx: AppContext) {
  return (handle: string) => resolveRemoteAccount(ctx, handle);
}

/** An idempotency key (stored, so bounded); null without one. */
export function checkIdempotencyKey(raw: string | null | undefined): string | null {
  const key = raw?.trim() || null;
  if (key && key.length > MAX_IDEMPOTENCY_KEY) {
    throw validationFailed("Idempotency key is too long");
  }
  return key;
}

/** Who posts, from where: what the parameters do not say. */
export interface StatusAuthor {
  accountId: string;
  applicationId: string | null;
  idempotencyKey: string | null;
}

/** The status a POST describes; ids that cannot be ids are the 404s of unknown ones. */
export function readStatusInput(
  ctx: AppContext,
  p: Params,
  author: StatusAuthor,
): LocalStatusInput {
  const inReplyToId = readString(p, "in_reply_to_id");
  if (inReplyToId !== undefined && !isId(inReplyToId)) throw new ApiError(404, REPLY_NOT_FOUND);
  const quotedStatusId = readString(p, "quoted_status_id");
  if (quotedStatusId !== undefined && !isId(quotedStatusId)) {
    throw new ApiError(404, QUOTE_NOT_FOUND);
  }
  const visibility = readString(p, "visibility");
  const quotePolicy = readString(p, "quote_approval_policy");
  return {
    local: true,
    accountId: author.accountId,
    text: readString(p, "status", { allowBlank: true }) ?? "",
    applicationId: author.applicationId,
    mediaIds: readStringArray(p, "media_ids", { maxItems: 1000 }) ?? [],
    poll: readPoll(p) ?? null,
    inReplyToId: inReplyToId ?? null,
    sensitive: readBoolean(p, "sensitive"),
    spoilerText: readString(p, "spoiler_text", { allowBlank: true }),
    visibility: visibility !== undefined ? checkVisibility(visibility) : undefined,
    language: readString(p, "language"),
    quotedStatusId: quotedStatusId ?? null,
    quoteApprovalPolicy: quotePolicy !== undefined ? checkQuotePolicy(quotePolicy) : undefined,
    interactionPolicy: readInteractionPolicy(p, "interaction_policy"),
    idempotencyKey: author.idempotencyKey,
    resolveRemoteAccount: remoteAccountResolver(ctx),
    allowedMentions: readStringArray(p, "allowed_mentions", { maxItems: 1000 }) ?? null,
  };
}

/** The edit a PUT describes, of `statusId` by `accountId` (absent fields stay as they are). */
export function readStatusEdit(
  ctx: AppContext,
  p: Params,
  accountId: string,
  statusId: string,
): EditStatusInput {
  const attributes: MediaAttributeInput[] = (readPermittedObjectList(p, "media_attributes") ?? [])
    .map((a) => ({
      id: readString(a, "id") ?? "",
      description: readString(a, "description", { allowBlank: true }),
      focus: readString(a, "focus"),
    }));
  const quotePolicy = readString(p, "quote_approval_policy");
  return {
    accountId,
    statusId,
    text: readString(p, "status", { allowBlank: true }),
    spoilerText: readString(p, "spoiler_text", { allowBlank: true }),
    sensitive: readBoolean(p, "sensitive"),
    language: readString(p, "language"),
    mediaIds: "media_ids" in p
      ? readStringArray(p, "media_ids", { maxItems: 1000 }) ?? []
      : undefined,
    mediaAttributes: attributes,
    poll: readPoll(p),
    quoteApprovalPolicy: quotePolicy !== undefined ? checkQuotePolicy(quotePolicy) : undefined,
    interactionPolicy: readInteractionPolicy(p, "interaction_policy"),
    resolveRemoteAccount: remoteAccountResolver(ctx),
  };
}
