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
 * Also: GET /statuses/:id (303 to the post's page /@acct/:id), /share
 * (Mastodon's share intent: 303 to the composer with `text` and `url`), and
 * deleting one's own post (GET confirmation, POST counted in the API's
 * status-deletion bucket too; back to `return_to`, never the deleted page).
 *
 * Editing: GET /statuses/:id/edit (the composer with the post's source
 * text and warning; one's own posts only) and POST /statuses/:id/update,
 * read by the API's edit reader and made by editStatus, as PUT
 * /api/v1/statuses/:id.
 *
 * Not yet (design 35 §2.2): history, delete-and-redraft, media and poll edits,
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
  readStatusEdit,
  readStatusInput,
  statusErrorOf,
} from "../../../api/status_params.ts";
import { isId } from "../../../db/ids.ts";
import { serializeStatuses, type StatusRow } from "../../../api/entities/status.ts";
import { createStatus } from "../../../actors/statuses/create.ts";
import { scheduleStatus } from "../../../actors/statuses/schedule.ts";
import { RATE_LIMITS } from "../../../api/middleware/rate_limit.ts";
import { readStatus } from "../../../api/reads/statuses.ts";
import { editStatus, ownStatus } from "../../../actors/statuses/edit.ts";
import { htmlToText } from "../../../actors/formatting/html_to_text.ts";
import { deleteStatus } from "../../../actors/statuses/delete.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { ConfirmPage } from "../../pages/app/confirm.tsx";
import { StatusItem } from "../../pages/app/status.tsx";
import { statusPath } from "../../pages/status/links.ts";
import { Composer, type ComposerValues } from "../../pages/app/composer.tsx";
import { refusalOf } from "../refusals.ts";
import { appPage, appReader, appViewer, sendAppNotFound, sendAppPage } from "./session.tsx";
import { hereWith, returnTo } from "./return_to.ts";
import { redirectAfterPost, sendFragment, wantsFragment } from "./fragments.ts";

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
  const { viewer, defaults } = await appReader(c);
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
        defaults={defaults}
        returnTo={options.returnTo}
        values={options.values}
        error={options.error}
      />
    </AppLayout>,
    (options.status ?? 200) as ContentfulStatusCode,
  );
}

/**
 * The script's answer to a post: a fresh composer (new idempotency key) in
 * place of the old one, and the new post on top of the feed, announced.
 */
async function postedFragment(
  c: Context<ApiEnv>,
  row: StatusRow,
  back: string,
): Promise<Response> {
  const ctx = c.get("ctx");
  const { viewer, defaults } = await appReader(c);
  const [status] = await serializeStatuses(ctx, [row], { accountId: viewer.accountId });
  return await sendFragment(
    c,
    <>
      <Composer
        viewer={viewer}
        defaults={defaults}
        returnTo={back}
        fragment={{ "data-replace": "composer", "data-announce": "Your post was published." }}
      />
      {status
        ? (
          <div data-prepend="feed">
            <StatusItem status={status} viewer={viewer} here={back.split("#")[0]} />
          </div>
        )
        : null}
    </>,
  );
}

/** Runs the post's command; a refusal comes back as the composer page. */
async function post(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const { user, webToken } = c.get("appSession")!;
  const p = await params(c);
  const back = returnTo(p, "/");
  try {
    const input = readStatusInput(ctx, p, {
      accountId: user.accountId,
      // The "Web" application (the session's web token's), as Mastodon's web posts.
      applicationId: webToken?.applicationId ?? null,
      idempotencyKey: checkIdempotencyKey(readString(p, "idempotency_key")),
    });
    const scheduledAt = readScheduledAt(p);
    if (scheduledAt) {
      await scheduleStatus(ctx, input, scheduledAt);
      return redirectAfterPost(c, "/scheduled_statuses", "scheduled");
    }
    const row = await createStatus(ctx, input);
    if (wantsFragment(c)) return await postedFragment(c, row, back);
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

const NOT_FOUND = "This post does not exist, or you may not see it.";

/** The viewer's own post of the `:id` path, or null (someone else's is not found either). */
async function ownRead(c: Context<ApiEnv>) {
  const viewer = appViewer(c);
  const read = await readStatus(c.get("ctx"), viewer, c.req.param("id")!);
  return read && read.row.accountId === viewer.accountId && !read.row.reblogOfId ? read : null;
}

async function deleteConfirmation(c: Context<ApiEnv>): Promise<Response> {
  const read = await ownRead(c);
  if (!read) return await sendAppNotFound(c, NOT_FOUND);
  const viewer = appViewer(c);
  const path = statusPath(read.status);
  return await sendAppPage(
    c,
    <AppLayout
      title="Delete this post?"
      instanceTitle={c.get("ctx").config.instance.title}
      viewer={viewer}
    >
      <StatusItem status={read.status} viewer={viewer} here={hereWith(c.req.url)} />
      <ConfirmPage
        action={`/statuses/${read.row.id}/delete`}
        token={viewer.csrfToken}
        returnTo={returnTo({ return_to: c.req.query("return_to") ?? null }, "/")}
        button="Delete"
        cancel={path}
        danger
      >
        <p>The post, its media and its poll are removed here and from the servers it reached.</p>
      </ConfirmPage>
    </AppLayout>,
  );
}

async function deletePost(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const id = c.req.param("id")!;
  const p = await params(c);
  try {
    await ownStatus(ctx.database.db, viewer.accountId, id);
    await deleteStatus(ctx, viewer.accountId, id, { deleteMedia: true });
  } catch (error) {
    const refusal = refusalOf(statusErrorOf(error));
    if (!refusal) throw error;
    return await sendAppNotFound(c, NOT_FOUND);
  }
  // Never back to the deleted post's own page.
  const back = returnTo(p, "/");
  const onDeleted = back.split(/[?#]/)[0].endsWith(`/${id}`);
  return redirectAfterPost(c, onDeleted ? "/" : back, "deleted");
}

/** The edit page: the composer in edit mode, or the refused edit with its message. */
async function sendEditPage(
  c: Context<ApiEnv>,
  statusId: string,
  values: ComposerValues,
  refusal?: { message: string; status: number },
): Promise<Response> {
  const { viewer } = await appReader(c);
  return await sendAppPage(
    c,
    <AppLayout
      title="Edit post"
      instanceTitle={c.get("ctx").config.instance.title}
      viewer={viewer}
    >
      <Composer
        viewer={viewer}
        returnTo={`/statuses/${statusId}`}
        values={values}
        edit={{ statusId }}
        error={refusal?.message}
      />
    </AppLayout>,
    (refusal?.status ?? 200) as ContentfulStatusCode,
  );
}

async function editPage(c: Context<ApiEnv>): Promise<Response> {
  const read = await ownRead(c);
  if (!read) return await sendAppNotFound(c, NOT_FOUND);
  return await sendEditPage(c, read.row.id, {
    status: read.row.text ?? htmlToText(read.row.content),
    spoilerText: read.row.spoilerText,
    sensitive: read.row.sensitive,
  });
}

async function updatePost(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const id = c.req.param("id")!;
  const p = await params(c);
  try {
    const edited = await editStatus(ctx, readStatusEdit(ctx, p, viewer.accountId, id));
    const [json] = await serializeStatuses(ctx, [edited], { accountId: viewer.accountId });
    return redirectAfterPost(c, json ? statusPath(json) : "/", "edited");
  } catch (error) {
    const refusal = refusalOf(statusErrorOf(error));
    if (!refusal) throw error;
    if (refusal.status === 404) return await sendAppNotFound(c, NOT_FOUND);
    return await sendEditPage(c, id, typedValues(p), refusal);
  }
}

export function appStatusRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/statuses/:id{[0-9]+}", appPage(), async (c) => {
    const { viewer } = await appReader(c);
    const read = await readStatus(c.get("ctx"), viewer, c.req.param("id"));
    if (!read) return await sendAppNotFound(c, NOT_FOUND);
    if (wantsFragment(c)) {
      // The script's refresh of an edited post: the article alone, its
      // forms coming back to the page it is shown on.
      const here = returnTo(await params(c), "/").split("#")[0];
      return await sendFragment(c, <StatusItem status={read.status} viewer={viewer} here={here} />);
    }
    return c.redirect(statusPath(read.status.reblog ?? read.status), 303);
  });

  app.get("/share", appPage(), async (c) => {
    const p = await params(c);
    const parts = ["text", "url"]
      .map((key) => readString(p, key, { maxLength: 10_000 }))
      .filter((part): part is string => !!part);
    return c.redirect(`/statuses/new?text=${encodeURIComponent(parts.join(" "))}`, 303);
  });

  app.get("/statuses/:id{[0-9]+}/edit", appPage(), editPage);
  app.post("/statuses/:id{[0-9]+}/update", appPage(), updatePost);
  app.get("/statuses/:id{[0-9]+}/delete", appPage(), deleteConfirmation);
  app.post(
    "/statuses/:id{[0-9]+}/delete",
    appPage({ extraLimit: RATE_LIMITS.statusDeletions }),
    deletePost,
  );

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
