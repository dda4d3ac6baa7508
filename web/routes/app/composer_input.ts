/**
 * What the composer's form adds to the API's parameters before the API's
 * readers see them (api/status_params.ts): the poll only when its box is
 * ticked, the schedule typed as a `datetime-local` in UTC, and the files
 * chosen in the slots, uploaded as POST /api/v1/media does (processed now,
 * so a video is ready before the post) and counted in the same `media`
 * bucket. Alt texts of attachments already uploaded are applied as PUT
 * /api/v1/media/:id does, before the post (as a client does; an unused
 * description on an unattached file is harmless).
 */
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { type ApiError, validationFailed } from "../../../api/errors.ts";
import type { Params } from "../../../api/params.ts";
import {
  readBoolean,
  readFile,
  readPermittedObject,
  readPermittedObjectList,
  readString,
} from "../../../api/readers.ts";
import { mediaRejection, readDescription } from "../../../api/media_params.ts";
import { countRequest, RATE_LIMITS } from "../../../api/middleware/rate_limit.ts";
import { MediaRejected } from "../../../actors/media/errors.ts";
import { type MediaRow, updateMedia, uploadMedia } from "../../../actors/media/upload.ts";
import { processMedia } from "../../../actors/media/processing.ts";
import { mediaAttachmentEntity } from "../../../api/entities/media_attachment.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { isId } from "../../../db/ids.ts";
import type { KeptMedia } from "../../pages/app/composer_fields.tsx";
import type { PollValues } from "../../pages/app/composer_fields.tsx";
import { MAX_ATTACHMENTS } from "../../pages/app/composer_fields.tsx";

/** A `datetime-local` value without a zone (read as UTC). */
const LOCAL_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/;

/** The form's parameters as the API's readers expect them (see the module's comment). */
export function apiParams(p: Params): Params {
  const out: Params = { ...p };
  if (!readBoolean(p, "poll_enabled")) delete out.poll;
  const local = readString(p, "scheduled_local", { maxLength: 100 });
  if (local && readString(p, "scheduled_at") === undefined) {
    out.scheduled_at = LOCAL_TIME.test(local) ? `${local}Z` : local;
  }
  return out;
}

/** The poll as typed, to show the form again. */
export function typedPoll(p: Params): PollValues | undefined {
  const poll = readPermittedObject(p, "poll");
  if (!poll) return undefined;
  const options = Array.isArray(poll.options)
    ? poll.options.filter((o): o is string => typeof o === "string")
    : [];
  const expiresIn = Number(readString(poll, "expires_in") ?? NaN);
  return {
    enabled: readBoolean(p, "poll_enabled") ?? false,
    options,
    expiresIn: Number.isFinite(expiresIn) ? expiresIn : undefined,
    multiple: readBoolean(poll, "multiple") ?? false,
    hideTotals: readBoolean(poll, "hide_totals") ?? false,
  };
}

/** An uploaded row as the composer keeps it. */
export function keptMedia(c: Context<ApiEnv>, row: MediaRow): KeptMedia {
  const entity = mediaAttachmentEntity(c.get("ctx").mediaUrls, row);
  return {
    id: row.id,
    previewUrl: entity.preview_url,
    description: row.description ?? "",
    processing: row.state === "processing",
  };
}

/** Counts one upload in the account's `media` bucket; false past the limit. */
export async function countUpload(c: Context<ApiEnv>, accountId: string): Promise<boolean> {
  const ctx = c.get("ctx");
  if (!ctx.config.rateLimits) return true;
  const [state] = await countRequest(ctx, [{ rule: RATE_LIMITS.media, subject: accountId }]);
  return !state || state.count <= state.rule.limit;
}

/** The files uploaded from the slots, and why the next one was refused, if one was. */
export interface SlotUploads {
  rows: MediaRow[];
  refusal: ApiError | null;
}

/**
 * Uploads each file chosen in a slot (`media[i][file]`, alt text
 * `media[i][description]`), in order, stopping at the first refusal: the
 * ones before it stay uploaded and are shown again, so nothing is sent twice.
 */
export async function uploadSlots(
  c: Context<ApiEnv>,
  accountId: string,
  p: Params,
  alreadyKept: number,
): Promise<SlotUploads> {
  const ctx = c.get("ctx");
  const slots = (readPermittedObjectList(p, "media") ?? [])
    .map((slot) => ({ slot, file: slot.file instanceof File ? readFile(slot, "file") : undefined }))
    .filter((s) => s.file);
  const rows: MediaRow[] = [];
  if (alreadyKept + slots.length > MAX_ATTACHMENTS) {
    return { rows, refusal: validationFailed(`A post may carry at most ${MAX_ATTACHMENTS} files`) };
  }
  for (const { slot, file } of slots) {
    if (!await countUpload(c, accountId)) {
      return { rows, refusal: validationFailed("Too many uploads in a short time, try later") };
    }
    try {
      let row: MediaRow | null = await uploadMedia(ctx, accountId, {
        file: file!,
        description: readDescription(slot),
      });
      if (row.state === "processing") row = await processMedia(ctx, row.id);
      if (row) rows.push(row);
    } catch (error) {
      if (error instanceof MediaRejected) {
        return { rows, refusal: mediaRejection(ctx.config, error) };
      }
      throw error;
    }
  }
  return { rows, refusal: null };
}

/**
 * Applies the alt texts typed for attachments already uploaded
 * (`media_attributes[<id>][description]`), the viewer's unattached ones
 * only; returns them as kept, in the order of `media_ids[]`.
 */
export async function applyDescriptions(
  c: Context<ApiEnv>,
  accountId: string,
  p: Params,
  ids: string[],
): Promise<KeptMedia[]> {
  const ctx = c.get("ctx");
  const typed = new Map(
    (readPermittedObjectList(p, "media_attributes") ?? [])
      .map((a) => [readString(a, "id") ?? "", readDescription(a)] as const),
  );
  const kept: KeptMedia[] = [];
  for (const id of ids.filter(isId).slice(0, MAX_ATTACHMENTS)) {
    try {
      const description = typed.get(id);
      const row = await updateMedia(ctx, accountId, id, { description });
      kept.push(keptMedia(c, row));
    } catch (error) {
      // Someone else's, attached or gone: the post's own check refuses it.
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  return kept;
}
