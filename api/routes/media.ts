/**
 * Media attachments of the token's user (all: user token + `write:media`):
 * - POST /api/v2/media → 200 MediaAttachment (images, processed now) or 202
 *   (video and audio, url null until processed in the background)
 * - POST /api/v1/media (deprecated) → 200 after processing, whatever the type
 * - GET /api/v1/media/:id → 200 processed, 206 processing, 422 failed
 * - PUT /api/v1/media/:id → description, focus, thumbnail
 * - DELETE /api/v1/media/:id → {} (422 while attached to a status)
 *
 * As in Mastodon, GET and PUT see only attachments not yet attached to a
 * status (an attached one is changed by editing the status); someone
 * else's, like a missing one, is 404.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError, validationFailed } from "../errors.ts";
import { params } from "../params.ts";
import { readFile } from "../readers.ts";
import { mediaRejection, readDescription, readFocus } from "../media_params.ts";
import { requireUser } from "../middleware/scopes.ts";
import { mediaAttachmentEntity } from "../entities/media_attachment.ts";
import { NotFoundError } from "../../model/errors.ts";
import { MediaRejected } from "../../actors/media/errors.ts";
import {
  deleteMedia,
  findOwnMedia,
  MediaInUse,
  type MediaRow,
  updateMedia,
  uploadMedia,
} from "../../actors/media/upload.ts";
import { processMedia, scheduleMediaProcessing } from "../../actors/media/processing.ts";
import { isId } from "../../db/ids.ts";

/** Mastodon's answer for an attachment whose processing failed. */
const PROCESSING_ERROR = "Error processing thumbnail for uploaded media";

/** The attachment as JSON with the status its state calls for. */
function answer(c: Context<ApiEnv>, row: MediaRow, processingStatus: 202 | 206): Response {
  if (row.state === "failed") throw new ApiError(422, PROCESSING_ERROR);
  const entity = mediaAttachmentEntity(c.get("ctx").mediaUrls, row);
  return c.json(entity, row.state === "processing" ? processingStatus : 200);
}

async function ownMedia(c: Context<ApiEnv>, options: { unattachedOnly: boolean }) {
  const id = c.req.param("id") ?? "";
  if (!isId(id)) throw new ApiError(404, "Record not found");
  try {
    return await findOwnMedia(c.get("ctx"), c.get("user")!.accountId, id, options);
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
    throw error;
  }
}

/** The routes, mounted at the root of the app. */
export function mediaRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  const create = (version: 1 | 2) => async (c: Context<ApiEnv>) => {
    const ctx = c.get("ctx");
    const p = await params(c);
    const file = readFile(p, "file");
    if (!file) throw validationFailed("File can't be blank");
    const thumbnail = readFile(p, "thumbnail");
    const description = readDescription(p);
    const focus = readFocus(p);
    let row: MediaRow | null;
    try {
      row = await uploadMedia(ctx, c.get("user")!.accountId, {
        file,
        thumbnail,
        description,
        focus,
      });
    } catch (error) {
      if (error instanceof MediaRejected) {
        throw mediaRejection(c.get("ctx").config, error);
      }
      throw error;
    }
    if (row.state === "processing") {
      if (version === 1) {
        row = await processMedia(ctx, row.id);
        if (!row) throw new ApiError(404, "Record not found");
      } else {
        scheduleMediaProcessing(ctx, row.id);
      }
    }
    return answer(c, row, 202);
  };
  app.post("/api/v2/media", requireUser("write:media"), create(2));
  app.post("/api/v1/media", requireUser("write:media"), create(1));

  app.get("/api/v1/media/:id", requireUser("write:media"), async (c) => {
    return answer(c, await ownMedia(c, { unattachedOnly: true }), 206);
  });

  app.on(["PUT", "PATCH"], "/api/v1/media/:id", requireUser("write:media"), async (c) => {
    const row = await ownMedia(c, { unattachedOnly: true });
    if (row.state === "failed") throw new ApiError(422, PROCESSING_ERROR);
    const p = await params(c);
    const change = {
      thumbnail: readFile(p, "thumbnail"),
      description: readDescription(p),
      focus: readFocus(p),
    };
    try {
      const updated = await updateMedia(c.get("ctx"), row.accountId, row.id, change);
      return answer(c, updated, 206);
    } catch (error) {
      if (error instanceof MediaRejected) throw mediaRejection(c.get("ctx").config, error);
      if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
      throw error;
    }
  });

  app.delete("/api/v1/media/:id", requireUser("write:media"), async (c) => {
    const row = await ownMedia(c, { unattachedOnly: false });
    try {
      await deleteMedia(c.get("ctx"), row.accountId, row.id);
    } catch (error) {
      if (error instanceof MediaInUse) throw new ApiError(422, error.message);
      if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
      throw error;
    }
    return c.json({});
  });

  return app;
}
