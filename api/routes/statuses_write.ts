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
import { ApiError } from "../errors.ts";
import { type Params, params } from "../params.ts";
import { readBoolean, readString } from "../readers.ts";
import { requireUser } from "../middleware/scopes.ts";
import { serializeStatuses } from "../entities/status.ts";
import { newOwnStatusViewerRows } from "../entities/status_hydration.ts";
import { serializeScheduledStatuses } from "../entities/scheduled_status.ts";
import { isId } from "../../db/ids.ts";
import { createStatus, type LocalStatusInput } from "../../actors/statuses/create.ts";
import { scheduleStatus } from "../../actors/statuses/schedule.ts";
import { editStatus, ownStatus } from "../../actors/statuses/edit.ts";
import { deleteStatus } from "../../actors/statuses/delete.ts";
import { setInteractionPolicy } from "../../actors/statuses/interaction_policy.ts";
import { readInteractionPolicy } from "../entities/interaction_policy.ts";
import { UnexpectedMentionsError } from "../../actors/statuses/errors.ts";
import { loadAccountEntities } from "../entities/account.ts";
import { checkQuotePolicy } from "../../actors/statuses/validation.ts";
import type { AppContext } from "../../context.ts";
import {
  checkIdempotencyKey,
  readScheduledAt,
  readStatusEdit,
  readStatusInput,
  statusErrorOf,
} from "../status_params.ts";

/** Mastodon's 422 for `allowed_mentions`: the message and the accounts it would have reached. */
async function unexpectedMentions(
  ctx: AppContext,
  error: UnexpectedMentionsError,
): Promise<ApiError> {
  const accounts = await loadAccountEntities(ctx.database.db, ctx.mediaUrls, error.accountIds);
  return new ApiError(422, error.message, { unexpected_accounts: accounts });
}

function me(c: Context<ApiEnv>): string {
  return c.get("user")!.accountId;
}

function pathId(c: Context<ApiEnv>): string {
  const id = c.req.param("id");
  if (!isId(id)) throw new ApiError(404, "Record not found");
  return id;
}

/** The status a POST describes, by the token's user and app. */
function readNewStatus(c: Context<ApiEnv>, p: Params): LocalStatusInput {
  return readStatusInput(c.get("ctx"), p, {
    accountId: me(c),
    applicationId: c.get("token")?.applicationId ?? null,
    idempotencyKey: checkIdempotencyKey(c.req.header("Idempotency-Key")),
  });
}

/** POST /api/v1/statuses: a Status, or a ScheduledStatus with `scheduled_at`. */
async function postStatus(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const p = await params(c);
  try {
    const input = readNewStatus(c, p);
    const scheduledAt = readScheduledAt(p);
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
    throw statusErrorOf(error);
  }
}

/** PUT /api/v1/statuses/:id: the edited Status. */
async function putStatus(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const id = pathId(c);
  const p = await params(c);
  const input = readStatusEdit(ctx, p, me(c), id);
  try {
    const status = await editStatus(ctx, input);
    const [json] = await serializeStatuses(ctx, [status], { accountId: me(c) });
    return c.json(json);
  } catch (error) {
    throw statusErrorOf(error);
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
    throw statusErrorOf(error);
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
    throw statusErrorOf(error);
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
