/**
 * Writing statuses: POST /api/v1/statuses (post or schedule), PUT
 * /api/v1/statuses/:id (edit), DELETE /api/v1/statuses/:id, and PUT (or
 * PATCH) /api/v1/statuses/:id/interaction_policy (Mastodon 4.5:
 * `quote_approval_policy` of one's own status, not an edit; → Status).
 *
 * Routes only read parameters; every rule lives in actors/statuses/. Their
 * StatusError carries Mastodon's status and message.
 *
 * Decisions:
 * - A poll needs both `poll[options][]` and `poll[expires_in]` (422 when
 *   either is missing).
 * - An `in_reply_to_id` or `quoted_status_id` that cannot be an id is the
 *   same 404 as an unknown one.
 * - `scheduled_at` that is not a timestamp is a 422; one less than five
 *   minutes ahead is Mastodon's "The scheduled date must be in the future".
 * - The delete answer is the Status as it was, with `text` (the source) for
 *   redraft, its poll and media.
 * - `allowed_mentions[]` (Mastodon 4.5): a post mentioning anyone else is
 *   refused with 422 `{"error", "unexpected_accounts": [Account]}`. A lone
 *   string counts as a one-item list (Rails would drop it; refusing more is
 *   the safe reading of a safeguard). Scheduling does not check it, as in
 *   Mastodon.
 * - A scalar where an optional hash goes (`poll=x`, `media_attributes=x`)
 *   is dropped, as Rails' strong parameters drop it.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError, validationFailed } from "../errors.ts";
import { type Params, params } from "../params.ts";
import {
  readBoolean,
  readInt,
  readPermittedObject,
  readPermittedObjectList,
  readString,
  readStringArray,
} from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { serializeStatuses } from "../entities/status.ts";
import { newOwnStatusViewerRows } from "../entities/status_hydration.ts";
import { serializeScheduledStatuses } from "../entities/scheduled_status.ts";
import { isId } from "../../db/ids.ts";
import { createStatus, type LocalStatusInput } from "../../actors/statuses/create.ts";
import { scheduleStatus } from "../../actors/statuses/schedule.ts";
import { editStatus, type MediaAttributeInput, ownStatus } from "../../actors/statuses/edit.ts";
import { deleteStatus } from "../../actors/statuses/delete.ts";
import { setInteractionPolicy } from "../../actors/statuses/interaction_policy.ts";
import { readInteractionPolicy } from "../entities/interaction_policy.ts";
import {
  QUOTE_NOT_FOUND,
  REPLY_NOT_FOUND,
  StatusError,
  UnexpectedMentionsError,
} from "../../actors/statuses/errors.ts";
import { loadAccountEntities } from "../entities/account.ts";
import {
  checkQuotePolicy,
  checkVisibility,
  type PollInput,
} from "../../actors/statuses/validation.ts";
import { resolveRemoteAccount } from "../../federation/remote/accounts.ts";
import type { AppContext } from "../../context.ts";

/** Idempotency keys longer than this are refused (they are stored). */
const MAX_IDEMPOTENCY_KEY = 512;

function statusError(error: unknown): unknown {
  return error instanceof StatusError ? new ApiError(error.status, error.message) : error;
}

/** Mastodon's 422 for `allowed_mentions`: the message and the accounts it would have reached. */
async function unexpectedMentions(
  ctx: AppContext,
  error: UnexpectedMentionsError,
): Promise<ApiError> {
  const accounts = await loadAccountEntities(ctx.database.db, ctx.mediaUrls, error.accountIds);
  return new ApiError(422, error.message, { unexpected_accounts: accounts });
}

function readPoll(p: Params): PollInput | undefined {
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

function readTime(p: Params, key: string): Date | undefined {
  const raw = readString(p, key);
  if (raw === undefined) return undefined;
  const date = new Date(raw);
  if (Number.isNaN(date.getTime())) throw validationFailed("Scheduled at is invalid");
  return date;
}

function resolver(ctx: AppContext) {
  return (handle: string) => resolveRemoteAccount(ctx, handle);
}

function me(c: Context<ApiEnv>): string {
  return c.get("user")!.accountId;
}

function pathId(c: Context<ApiEnv>): string {
  const id = c.req.param("id");
  if (!isId(id)) throw new ApiError(404, "Record not found");
  return id;
}

/** The idempotency key of a post (stored, so bounded); null without one. */
function idempotencyKey(c: Context<ApiEnv>): string | null {
  const key = c.req.header("Idempotency-Key")?.trim() || null;
  if (key && key.length > MAX_IDEMPOTENCY_KEY) {
    throw validationFailed("Idempotency key is too long");
  }
  return key;
}

/** The status a POST describes; ids that cannot be ids are the 404s of unknown ones. */
function readNewStatus(c: Context<ApiEnv>, p: Params): LocalStatusInput {
  const inReplyToId = readString(p, "in_reply_to_id");
  if (inReplyToId !== undefined && !isId(inReplyToId)) throw new ApiError(404, REPLY_NOT_FOUND);
  const quotedStatusId = readString(p, "quoted_status_id");
  if (quotedStatusId !== undefined && !isId(quotedStatusId)) {
    throw new ApiError(404, QUOTE_NOT_FOUND);
  }
  const visibility = readString(p, "visibility");
  const quotePolicy = readString(p, "quote_approval_policy");
  const key = idempotencyKey(c);
  return {
    local: true,
    accountId: me(c),
    text: readString(p, "status", { allowBlank: true }) ?? "",
    applicationId: c.get("token")?.applicationId ?? null,
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
    idempotencyKey: key,
    resolveRemoteAccount: resolver(c.get("ctx")),
    allowedMentions: readStringArray(p, "allowed_mentions", { maxItems: 1000 }) ?? null,
  };
}

/** POST /api/v1/statuses: a Status, or a ScheduledStatus with `scheduled_at`. */
async function postStatus(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const p = await params(c);
  try {
    const input = readNewStatus(c, p);
    const scheduledAt = readTime(p, "scheduled_at");
    if (scheduledAt) {
      const row = await scheduleStatus(ctx, input, scheduledAt);
      const [json] = await serializeScheduledStatuses(ctx, [row]);
      return c.json(json);
    }
    const status = await createStatus(ctx, input);
    // Without a key the status is new (a key may answer an earlier one,
    // which may have been favourited since): nothing about it depends on
    // the viewer yet.
    const viewerRows = input.idempotencyKey ? undefined : newOwnStatusViewerRows(status, me(c));
    const [json] = await serializeStatuses(ctx, [status], { accountId: me(c) }, viewerRows);
    return c.json(json);
  } catch (error) {
    if (error instanceof UnexpectedMentionsError) throw await unexpectedMentions(ctx, error);
    throw statusError(error);
  }
}

/** PUT /api/v1/statuses/:id: the edited Status. */
async function putStatus(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const id = pathId(c);
  const p = await params(c);
  const attributes: MediaAttributeInput[] = (readPermittedObjectList(p, "media_attributes") ?? [])
    .map((a) => ({
      id: readString(a, "id") ?? "",
      description: readString(a, "description", { allowBlank: true }),
      focus: readString(a, "focus"),
    }));
  const quotePolicy = readString(p, "quote_approval_policy");
  try {
    const status = await editStatus(ctx, {
      accountId: me(c),
      statusId: id,
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
      resolveRemoteAccount: resolver(ctx),
    });
    const [json] = await serializeStatuses(ctx, [status], { accountId: me(c) });
    return c.json(json);
  } catch (error) {
    throw statusError(error);
  }
}

/** PUT or PATCH /api/v1/statuses/:id/interaction_policy: the Status with its new policy. */
async function putInteractionPolicy(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const id = pathId(c);
  const p = await params(c);
  const quotePolicy = readString(p, "quote_approval_policy");
  const interactionPolicy = readInteractionPolicy(p, "interaction_policy");
  try {
    const status = await setInteractionPolicy(ctx.database.db, me(c), id, {
      // Mastodon's route needs its word unless GoToSocial's policy is given.
      quotePolicy: quotePolicy !== undefined || !interactionPolicy
        ? checkQuotePolicy(quotePolicy ?? "")
        : undefined,
      interactionPolicy,
    });
    const [json] = await serializeStatuses(ctx, [status], { accountId: me(c) });
    return c.json(json);
  } catch (error) {
    throw statusError(error);
  }
}

/** DELETE /api/v1/statuses/:id: the Status as it was, with its source text for redraft. */
async function removeStatus(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const id = pathId(c);
  const p = await params(c);
  const viewer = { accountId: me(c) };
  try {
    const before = await ownStatus(ctx.database.db, viewer.accountId, id);
    // Serialized before the delete: the answer shows the media and poll for redraft.
    const [json] = await serializeStatuses(ctx, [before], viewer);
    await deleteStatus(ctx, viewer.accountId, id, {
      deleteMedia: readBoolean(p, "delete_media") ?? false,
    });
    return c.json({ ...json, text: before.text ?? "" });
  } catch (error) {
    throw statusError(error);
  }
}

/** The write routes, mounted at the root of the app. */
export function statusWriteRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const writeStatuses = requireUser("write:statuses");
  app.post("/api/v1/statuses", writeStatuses, postStatus);
  app.on(["PUT", "PATCH"], "/api/v1/statuses/:id{[0-9]+}", writeStatuses, putStatus);
  app.on(
    ["PUT", "PATCH"],
    "/api/v1/statuses/:id{[0-9]+}/interaction_policy",
    writeStatuses,
    putInteractionPolicy,
  );
  app.delete("/api/v1/statuses/:id{[0-9]+}", writeStatuses, removeStatus);
  return app;
}
