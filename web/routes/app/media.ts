/**
 * The web app's uploads for the script (design 35 §9.2), each answering a
 * fragment (fragments.ts) of the composer's attachment list:
 * - POST /media (`file`, `description`): uploaded as POST /api/v2/media
 *   (images now, video and audio processed in the background), counted in
 *   the API's `media` bucket; answers the `<li class="attachment">` to
 *   append to #attachments, or a 422 `.alert` with the API's words;
 * - GET /media/:id: the same item again (processing, then done), polled;
 * - POST /media/:id/delete: removes an unattached upload (`data-remove`).
 * Someone else's, an attached one or a missing one is a 404 fragment.
 * Without script the composer's file slots upload with the post instead.
 */
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { jsx } from "hono/jsx";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { readFile } from "../../../api/readers.ts";
import { validationFailed } from "../../../api/errors.ts";
import { mediaRejection, readDescription } from "../../../api/media_params.ts";
import { RATE_LIMITS } from "../../../api/middleware/rate_limit.ts";
import { MediaRejected } from "../../../actors/media/errors.ts";
import {
  deleteMedia,
  findOwnMedia,
  MediaInUse,
  uploadMedia,
} from "../../../actors/media/upload.ts";
import { scheduleMediaProcessing } from "../../../actors/media/processing.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { isId } from "../../../db/ids.ts";
import { AttachmentItem } from "../../pages/app/composer_fields.tsx";
import { refusalOf } from "../refusals.ts";
import { appPage, appViewer } from "./session.tsx";
import { sendFragment } from "./fragments.ts";
import { keptMedia } from "./composer_input.ts";

const NOT_FOUND = "This upload does not exist.";

function alertFragment(c: Context<ApiEnv>, message: string, status: number): Promise<Response> {
  return sendFragment(
    c,
    jsx("p", { class: "alert", role: "alert", "data-announce": message }, message),
    status as ContentfulStatusCode,
  );
}

async function upload(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const { accountId } = appViewer(c);
  try {
    const p = await params(c);
    const file = readFile(p, "file");
    if (!file) throw validationFailed("File can't be blank");
    const row = await uploadMedia(ctx, accountId, { file, description: readDescription(p) });
    if (row.state === "processing") scheduleMediaProcessing(ctx, row.id);
    return await sendFragment(
      c,
      jsx(AttachmentItem, {
        media: keptMedia(c, row),
        fragment: { "data-append": "attachments", "data-announce": "File uploaded." },
      }),
    );
  } catch (error) {
    const refusal = refusalOf(
      error instanceof MediaRejected ? mediaRejection(ctx.config, error) : error,
    );
    if (!refusal) throw error;
    return await alertFragment(c, refusal.message, refusal.status);
  }
}

async function ownUpload(c: Context<ApiEnv>) {
  const id = c.req.param("id") ?? "";
  if (!isId(id)) return null;
  try {
    return await findOwnMedia(c.get("ctx"), appViewer(c).accountId, id, { unattachedOnly: true });
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}

export function appMediaRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post("/media", appPage({ extraLimit: RATE_LIMITS.media }), upload);

  app.get("/media/:id", appPage(), async (c) => {
    const row = await ownUpload(c);
    if (!row) return await alertFragment(c, NOT_FOUND, 404);
    return await sendFragment(
      c,
      jsx(AttachmentItem, {
        media: keptMedia(c, row),
        fragment: { "data-replace": `attachment-${row.id}` },
      }),
    );
  });

  app.post("/media/:id/delete", appPage(), async (c) => {
    const row = await ownUpload(c);
    if (!row) return await alertFragment(c, NOT_FOUND, 404);
    try {
      await deleteMedia(c.get("ctx"), row.accountId, row.id);
    } catch (error) {
      // Attached or deleted meanwhile.
      if (!(error instanceof MediaInUse) && !(error instanceof NotFoundError)) throw error;
      return await alertFragment(c, NOT_FOUND, 404);
    }
    return await sendFragment(
      c,
      jsx("div", { "data-remove": `attachment-${row.id}`, "data-announce": "File removed." }),
    );
  });
  return app;
}
