/**
 * Changing one's own post from the web app (design 35 §2.2, §9.4):
 * - GET /statuses/:id/edit: the composer with the post's source text,
 *   warning, language, poll and attachments (alt texts editable); POST
 *   /statuses/:id/update, read by the API's edit reader and made by
 *   editStatus, as PUT /api/v1/statuses/:id;
 * - GET /statuses/:id/history: its versions, as GET
 *   /api/v1/statuses/:id/history answers them (loadStatusHistory), for any
 *   post the viewer may see; a visitor gets the public page of them;
 * - GET /statuses/:id/delete: the confirmation, with "Delete" and "Delete
 *   and redraft"; POST /statuses/:id/delete, counted in the API's
 *   status-deletion bucket too, back to `return_to` (never the deleted
 *   page; the script gets `data-remove` of the article). With `redraft=1` the media are kept (the API's `delete_media`
 *   false) and the answer is the composer filled with the post: its text,
 *   warning, visibility, language, sensitivity, attachments, poll choices
 *   and the post it replied to, as Mastodon's "Delete & re-draft".
 * Someone else's post, like a missing one, is the app's 404 page.
 */
import { type Context, Hono } from "hono";
import { jsx } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { readBoolean } from "../../../api/readers.ts";
import { readStatusEdit, statusErrorOf } from "../../../api/status_params.ts";
import {
  serializeStatuses,
  type StatusJson,
  type StatusRow,
} from "../../../api/entities/status.ts";
import { loadStatusHistory } from "../../../api/entities/status_edit.ts";
import { RATE_LIMITS } from "../../../api/middleware/rate_limit.ts";
import { readStatus } from "../../../api/reads/statuses.ts";
import { editStatus, ownStatus } from "../../../actors/statuses/edit.ts";
import { htmlToText } from "../../../actors/formatting/html_to_text.ts";
import { deleteStatus } from "../../../actors/statuses/delete.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { ConfirmPage } from "../../pages/app/confirm.tsx";
import { StatusItem } from "../../pages/app/status.tsx";
import { HistoryList } from "../../pages/status/history.tsx";
import { statusPath } from "../../pages/status/links.ts";
import { Composer, composerLimits, type ComposerValues } from "../../pages/app/composer.tsx";
import type { KeptMedia } from "../../pages/app/composer_fields.tsx";
import { refusalOf } from "../refusals.ts";
import { appPage, appReader, appViewer, sendAppNotFound, sendAppPage } from "./session.tsx";
import { hereWith, returnTo } from "./return_to.ts";
import { redirectAfterPost, sendFragment, wantsFragment } from "./fragments.ts";
import { signedInBranch } from "./branch.ts";
import { apiParams } from "./composer_input.ts";
import { NOT_FOUND, sendComposerPage, typedValues } from "./statuses.tsx";

/** The viewer's own post of the `:id` path, or null (someone else's is not found either). */
async function ownRead(c: Context<ApiEnv>) {
  const viewer = appViewer(c);
  const read = await readStatus(c.get("ctx"), viewer, c.req.param("id")!);
  return read && read.row.accountId === viewer.accountId && !read.row.reblogOfId ? read : null;
}

/**
 * A post as the composer shows it again. A redraft's poll is ticked (a new
 * post); an edit's is not, so saving the text leaves the poll and its end
 * as they are (the reader ticks the box to change it).
 */
function composerValuesOf(
  row: StatusRow,
  status: StatusJson,
  purpose: "edit" | "redraft",
): ComposerValues {
  const media: KeptMedia[] = status.media_attachments.map((m) => ({
    id: m.id,
    previewUrl: m.preview_url,
    description: m.description ?? "",
    processing: false,
  }));
  return {
    status: row.text ?? htmlToText(row.content),
    spoilerText: row.spoilerText,
    visibility: status.visibility,
    sensitive: row.sensitive,
    language: status.language,
    inReplyToId: status.in_reply_to_id ?? undefined,
    media,
    poll: status.poll
      ? {
        enabled: purpose === "redraft",
        options: status.poll.options.map((o) => o.title),
        multiple: status.poll.multiple,
      }
      : undefined,
  };
}

async function deleteConfirmation(c: Context<ApiEnv>): Promise<Response> {
  const read = await ownRead(c);
  if (!read) return await sendAppNotFound(c, NOT_FOUND);
  const viewer = appViewer(c);
  const path = statusPath(read.status);
  const back = returnTo({ return_to: c.req.query("return_to") ?? null }, "/");
  const action = `/statuses/${read.row.id}/delete`;
  return await sendAppPage(
    c,
    <AppLayout
      title="Delete this post?"
      instanceTitle={c.get("ctx").config.instance.title}
      viewer={viewer}
    >
      <StatusItem status={read.status} viewer={viewer} here={hereWith(c.req.url)} />
      <ConfirmPage
        action={action}
        token={viewer.csrfToken}
        returnTo={back}
        button="Delete"
        cancel={path}
        danger
      >
        <p>The post, its media and its poll are removed here and from the servers it reached.</p>
      </ConfirmPage>
      <ConfirmPage
        action={action}
        token={viewer.csrfToken}
        returnTo={back}
        button="Delete and redraft"
        cancel={path}
      >
        <p>
          Or delete it and write it again: its text and media come back in the composer; its boosts,
          favourites and replies are lost.
        </p>
        <input type="hidden" name="redraft" value="1" />
      </ConfirmPage>
    </AppLayout>,
  );
}

async function deletePost(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const id = c.req.param("id")!;
  const p = await params(c);
  const redraft = readBoolean(p, "redraft") ?? false;
  const read = redraft ? await ownRead(c) : null;
  try {
    await ownStatus(ctx.database.db, viewer.accountId, id);
    await deleteStatus(ctx, viewer.accountId, id, { deleteMedia: !redraft });
  } catch (error) {
    const refusal = refusalOf(statusErrorOf(error));
    if (!refusal) throw error;
    return await sendAppNotFound(c, NOT_FOUND);
  }
  if (read) {
    return await sendComposerPage(c, {
      values: composerValuesOf(read.row, read.status, "redraft"),
      returnTo: "/",
    });
  }
  if (wantsFragment(c)) {
    return await sendFragment(
      c,
      jsx("div", { "data-remove": `status-${id}`, "data-announce": "Your post was deleted." }),
    );
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
  const { config } = c.get("ctx");
  return await sendAppPage(
    c,
    <AppLayout title="Edit post" instanceTitle={config.instance.title} viewer={viewer}>
      <Composer
        viewer={viewer}
        returnTo={`/statuses/${statusId}`}
        values={values}
        edit={{ statusId }}
        error={refusal?.message}
        limits={composerLimits(config.limits)}
      />
    </AppLayout>,
    (refusal?.status ?? 200) as ContentfulStatusCode,
  );
}

async function editPage(c: Context<ApiEnv>): Promise<Response> {
  const read = await ownRead(c);
  if (!read) return await sendAppNotFound(c, NOT_FOUND);
  return await sendEditPage(c, read.row.id, composerValuesOf(read.row, read.status, "edit"));
}

async function updatePost(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const id = c.req.param("id")!;
  const p = await params(c);
  // The poll box unticked leaves the poll as it is (apiParams drops it).
  const edit = apiParams(p);
  try {
    const edited = await editStatus(ctx, readStatusEdit(ctx, edit, viewer.accountId, id));
    const [json] = await serializeStatuses(ctx, [edited], { accountId: viewer.accountId });
    return redirectAfterPost(c, json ? statusPath(json) : "/", "edited");
  } catch (error) {
    const refusal = refusalOf(statusErrorOf(error));
    if (!refusal) throw error;
    if (refusal.status === 404) return await sendAppNotFound(c, NOT_FOUND);
    return await sendEditPage(c, id, typedValues(p), refusal);
  }
}

async function historyPage(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const { viewer } = await appReader(c);
  const read = await readStatus(ctx, viewer, c.req.param("id")!);
  if (!read || read.row.reblogOfId) return await sendAppNotFound(c, NOT_FOUND);
  const versions = await loadStatusHistory(ctx, read.row);
  return await sendAppPage(
    c,
    <AppLayout title="Edit history" instanceTitle={ctx.config.instance.title} viewer={viewer}>
      <p>
        <a href={statusPath(read.status)}>Back to the post</a>
      </p>
      <HistoryList versions={versions} />
    </AppLayout>,
  );
}

export function appStatusEditRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/statuses/:id{[0-9]+}/edit", appPage(), editPage);
  app.post("/statuses/:id{[0-9]+}/update", appPage(), updatePost);
  // Visitors go on to the public page of the history (public/status_pages.ts).
  app.get("/statuses/:id{[0-9]+}/history", signedInBranch(historyPage));
  app.get("/statuses/:id{[0-9]+}/delete", appPage(), deleteConfirmation);
  app.post(
    "/statuses/:id{[0-9]+}/delete",
    appPage({ extraLimit: RATE_LIMITS.statusDeletions }),
    deletePost,
  );
  return app;
}
