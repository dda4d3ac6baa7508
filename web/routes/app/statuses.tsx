/**
 * Posting from the web app: GET /statuses/new (the composer page, with
 * `?text=` and `?in_reply_to_id=` prefilled) and POST /statuses. The post is
 * read by the API's reader (api/status_params.ts, after composer_input.ts
 * turned the form's poll box, UTC schedule and file slots into the API's
 * parameters) and made by the same command as POST /api/v1/statuses
 * (createStatus, or scheduleStatus with `scheduled_at`), with the form's
 * idempotency key, so a double submit makes one post. A refusal answers the
 * composer page again with the command's message, what was typed and the
 * files already uploaded, with the API's status (403, 404, 422), never a
 * 500. Success: 303 to `return_to` (default /) with a notice.
 *
 * Also: GET /statuses/:id (303 to the post's page /@acct/:id) and /share
 * (Mastodon's share intent: 303 to the composer with `text` and `url`).
 * Editing, history and deleting are in status_edits.tsx.
 */
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import { readBoolean, readString, readStringArray } from "../../../api/readers.ts";
import {
  checkIdempotencyKey,
  readScheduledAt,
  readStatusInput,
  statusErrorOf,
} from "../../../api/status_params.ts";
import { isId } from "../../../db/ids.ts";
import {
  serializeStatuses,
  type StatusJson,
  type StatusRow,
} from "../../../api/entities/status.ts";
import { createStatus } from "../../../actors/statuses/create.ts";
import { scheduleStatus } from "../../../actors/statuses/schedule.ts";
import { readStatus } from "../../../api/reads/statuses.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { StatusItem } from "../../pages/app/status.tsx";
import { statusPath } from "../../pages/status/links.ts";
import {
  Composer,
  type ComposerDefaults,
  composerLimits,
  ComposerTarget,
  type ComposerValues,
} from "../../pages/app/composer.tsx";
import type { KeptMedia } from "../../pages/app/composer_fields.tsx";
import { refusalOf } from "../refusals.ts";
import { appPage, appReader, appSession, sendAppNotFound, sendAppPage } from "./session.tsx";
import { returnTo } from "./return_to.ts";
import { redirectAfterPost, sendFragment, wantsFragment } from "./fragments.ts";
import {
  apiParams,
  applyDescriptions,
  keptMedia,
  typedPoll,
  uploadSlots,
} from "./composer_input.ts";

export const NOT_FOUND = "This post does not exist, or you may not see it.";

/** What the form said, to show it again after a refusal. */
export function typedValues(p: Params, media: KeptMedia[] = []): ComposerValues {
  const text = (key: string) => readString(p, key, { allowBlank: true });
  const replyTo = text("in_reply_to_id");
  const quoted = text("quoted_status_id");
  return {
    quotedStatusId: quoted && isId(quoted) ? quoted : undefined,
    quotePolicy: text("quote_approval_policy"),
    status: text("status"),
    spoilerText: text("spoiler_text"),
    visibility: text("visibility"),
    sensitive: readBoolean(p, "sensitive") ?? false,
    inReplyToId: replyTo && isId(replyTo) ? replyTo : undefined,
    language: text("language") ?? null,
    poll: typedPoll(p),
    scheduledLocal: text("scheduled_local"),
    media,
  };
}

/** Visibilities from the widest to the narrowest. */
const VISIBILITY_ORDER = ["public", "unlisted", "private", "direct"];

/**
 * What a reply starts from, as Mastodon's composer: the author and the
 * people it mentions (not oneself), and the parent's visibility when it is
 * narrower than one's default.
 */
function replyDefaults(
  parent: StatusJson,
  viewer: { accountId: string },
  defaults: ComposerDefaults,
): ComposerValues {
  const handles = [parent.account, ...parent.mentions]
    .filter((a) => a.id !== viewer.accountId)
    .map((a) => `@${a.acct}`);
  const narrowest = Math.max(
    VISIBILITY_ORDER.indexOf(parent.visibility),
    VISIBILITY_ORDER.indexOf(defaults.visibility),
  );
  return {
    status: handles.length ? `${[...new Set(handles)].join(" ")} ` : "",
    visibility: VISIBILITY_ORDER[narrowest] ?? defaults.visibility,
    spoilerText: parent.spoiler_text || undefined,
  };
}

/**
 * The composer page, empty, prefilled, or with the last refusal's message;
 * the post replied to or quoted above it. `fresh`: a new reply starts from
 * its parent (replyDefaults), under what the query gave.
 */
export async function sendComposerPage(
  c: Context<ApiEnv>,
  options: {
    values: ComposerValues;
    returnTo: string;
    error?: string;
    status?: number;
    fresh?: boolean;
  },
): Promise<Response> {
  const { viewer, defaults } = await appReader(c);
  const ctx = c.get("ctx");
  const target = async (id?: string) =>
    id ? (await readStatus(ctx, viewer, id))?.status ?? null : null;
  const reply = await target(options.values.inReplyToId);
  const quote = await target(options.values.quotedStatusId);
  let values = options.values;
  if (options.fresh && reply) {
    const given = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
    values = { ...replyDefaults(reply, viewer, defaults), ...given };
  }
  return await sendAppPage(
    c,
    <AppLayout
      title={reply ? "Reply" : "New post"}
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current="new"
    >
      {reply ? <ComposerTarget status={reply} kind="reply" reading={viewer.reading} /> : null}
      {quote ? <ComposerTarget status={quote} kind="quote" reading={viewer.reading} /> : null}
      <Composer
        viewer={viewer}
        defaults={defaults}
        returnTo={options.returnTo}
        values={values}
        error={options.error}
        limits={composerLimits(ctx.config.limits)}
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
        limits={composerLimits(ctx.config.limits)}
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

/**
 * The attachments of the post: those already uploaded (their alt texts
 * applied), then the files chosen in the slots. Throws the first refusal
 * after keeping what was uploaded in `kept`, so the page shows them again.
 */
async function attachments(c: Context<ApiEnv>, p: Params, kept: KeptMedia[]): Promise<void> {
  const { accountId } = appSession(c).user;
  const ids = readStringArray(p, "media_ids", { maxItems: 1000 }) ?? [];
  kept.push(...await applyDescriptions(c, accountId, p, ids));
  const uploads = await uploadSlots(c, accountId, p, kept.length);
  kept.push(...uploads.rows.map((row) => keptMedia(c, row)));
  if (uploads.refusal) throw uploads.refusal;
}

/** Runs the post's command; a refusal comes back as the composer page. */
async function post(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const { user, webToken } = appSession(c);
  const p = await params(c);
  const back = returnTo(p, "/");
  const kept: KeptMedia[] = [];
  try {
    await attachments(c, p, kept);
    const input = readStatusInput(ctx, { ...apiParams(p), media_ids: kept.map((m) => m.id) }, {
      accountId: user.accountId,
      // The "Web" application (the session's web token's), as Mastodon's web posts.
      applicationId: webToken?.applicationId ?? null,
      idempotencyKey: checkIdempotencyKey(readString(p, "idempotency_key")),
    });
    const scheduledAt = readScheduledAt(apiParams(p));
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
      values: typedValues(p, kept),
      returnTo: back,
      error: refusal.message,
      status: refusal.status,
    });
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

  app.get("/statuses/new", appPage(), async (c) => {
    const p = await params(c);
    const id = (key: string) => {
      const value = readString(p, key);
      return value && isId(value) ? value : undefined;
    };
    return await sendComposerPage(c, {
      values: {
        status: readString(p, "text", { maxLength: 10_000 }),
        inReplyToId: id("in_reply_to_id"),
        quotedStatusId: id("quoted_status_id"),
      },
      returnTo: "/",
      fresh: true,
    });
  });

  app.post("/statuses", appPage(), post);

  return app;
}
