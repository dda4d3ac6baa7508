/**
 * Posting from the web app: GET /statuses/new (the composer page, with
 * `?text=` and `?in_reply_to_id=` prefilled) and POST /statuses. The post is
 * read by the API's reader (api/status_params.ts) and made by the same
 * command as POST /api/v1/statuses (createStatus, or scheduleStatus with
 * `scheduled_at`), with the form's idempotency key, so a double submit
 * makes one post. A refusal answers the composer page again with the
 * command's message and what was typed, with the API's status (403, 404,
 * 422), never a 500. Success: 303 to `return_to` (default /) with a notice.
 *
 * Not yet (design 35 §2.2): /share, edit/update/history/delete/redraft,
 * scheduled statuses, fragment answers for the script.
 */
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import { readBoolean, readString } from "../../../api/readers.ts";
import {
  checkIdempotencyKey,
  readScheduledAt,
  readStatusInput,
  statusErrorOf,
} from "../../../api/status_params.ts";
import { isId } from "../../../db/ids.ts";
import { createStatus } from "../../../actors/statuses/create.ts";
import { scheduleStatus } from "../../../actors/statuses/schedule.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { Composer, type ComposerValues } from "../../pages/app/composer.tsx";
import { refusalOf } from "../refusals.ts";
import { appPage, appViewer, sendAppPage } from "./session.tsx";
import { returnTo } from "./return_to.ts";
import { redirectAfterPost } from "./fragments.ts";

/** What the form said, to show it again after a refusal. */
function typedValues(p: Params): ComposerValues {
  const text = (key: string) => readString(p, key, { allowBlank: true });
  const replyTo = text("in_reply_to_id");
  return {
    status: text("status"),
    spoilerText: text("spoiler_text"),
    visibility: text("visibility"),
    sensitive: readBoolean(p, "sensitive") ?? false,
    inReplyToId: replyTo && isId(replyTo) ? replyTo : undefined,
  };
}

/** The composer page, empty, prefilled, or with the last refusal's message. */
async function sendComposerPage(
  c: Context<ApiEnv>,
  options: { values: ComposerValues; returnTo: string; error?: string; status?: number },
): Promise<Response> {
  const viewer = appViewer(c);
  return await sendAppPage(
    c,
    <AppLayout
      title="New post"
      instanceTitle={c.get("ctx").config.instance.title}
      viewer={viewer}
      current="new"
    >
      <Composer
        viewer={viewer}
        returnTo={options.returnTo}
        values={options.values}
        error={options.error}
      />
    </AppLayout>,
    (options.status ?? 200) as ContentfulStatusCode,
  );
}

/** Runs the post's command; a refusal comes back as the composer page. */
async function post(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const { user } = c.get("appSession")!;
  const p = await params(c);
  const back = returnTo(p, "/");
  try {
    const input = readStatusInput(ctx, p, {
      accountId: user.accountId,
      applicationId: null,
      idempotencyKey: checkIdempotencyKey(readString(p, "idempotency_key")),
    });
    const scheduledAt = readScheduledAt(p);
    if (scheduledAt) {
      await scheduleStatus(ctx, input, scheduledAt);
      return redirectAfterPost(c, "/scheduled_statuses", "scheduled");
    }
    await createStatus(ctx, input);
    return redirectAfterPost(c, back, "posted");
  } catch (error) {
    const refusal = refusalOf(statusErrorOf(error));
    if (!refusal) throw error;
    return await sendComposerPage(c, {
      values: typedValues(p),
      returnTo: back,
      error: refusal.message,
      status: refusal.status,
    });
  }
}

export function appStatusRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/statuses/new", appPage(), async (c) => {
    const p = await params(c);
    const replyTo = readString(p, "in_reply_to_id");
    return await sendComposerPage(c, {
      values: {
        status: readString(p, "text", { allowBlank: true, maxLength: 10_000 }),
        inReplyToId: replyTo && isId(replyTo) ? replyTo : undefined,
      },
      returnTo: "/",
    });
  });

  app.post("/statuses", appPage(), post);

  return app;
}
