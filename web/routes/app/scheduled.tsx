/**
 * The scheduled posts of the web app (design 35 §2.2): GET
 * /scheduled_statuses lists them through the API's read
 * (readScheduledStatuses); POST /scheduled_statuses/:id/update moves one
 * (`scheduled_local`, a `datetime-local` read as UTC, or `scheduled_at`)
 * and POST /scheduled_statuses/:id/delete cancels it (for the script:
 * `data-remove` of its item), with the commands of
 * PUT and DELETE /api/v1/scheduled_statuses/:id (the five-minute rule and
 * the daily limits are theirs). A refusal comes back as the list with the
 * message (422), someone else's or a missing one as the 404 page.
 */
import { type Context, Hono } from "hono";
import { jsx } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { PAGE_SIZES, readPageParams } from "../../../api/pagination.ts";
import { readScheduledAt, statusErrorOf } from "../../../api/status_params.ts";
import { readScheduledStatuses } from "../../../api/reads/scheduled_statuses.ts";
import {
  cancelScheduledStatus,
  rescheduleStatus,
} from "../../../actors/statuses/scheduled_statuses.ts";
import { validationFailed } from "../../../api/errors.ts";
import { isId } from "../../../db/ids.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { Pager } from "../../pages/app/pager.tsx";
import { ScheduledList } from "../../pages/app/scheduled.tsx";
import { refusalOf } from "../refusals.ts";
import { appPage, appViewer, sendAppNotFound, sendAppPage } from "./session.tsx";
import { pagerLinks } from "./paging.ts";
import { redirectAfterPost, sendFragment, wantsFragment } from "./fragments.ts";
import { NOTICES } from "../../pages/app/notices.tsx";
import { apiParams } from "./composer_input.ts";

const NOT_FOUND = "This scheduled post does not exist.";

async function listPage(
  c: Context<ApiEnv>,
  error?: { message: string; status: number },
): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const p = { ...c.req.query() };
  const read = await readScheduledStatuses(ctx, viewer.accountId, p);
  const size = PAGE_SIZES.scheduledStatuses;
  return await sendAppPage(
    c,
    <AppLayout
      title="Scheduled posts"
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      notice={c.req.query("notice")}
    >
      {error ? <p class="alert" role="alert">{error.message}</p> : null}
      <ScheduledList items={read.items} token={viewer.csrfToken} />
      <Pager links={pagerLinks(c, readPageParams(p, size), size, read)} />
    </AppLayout>,
    (error?.status ?? 200) as ContentfulStatusCode,
  );
}

/** Runs a command on the `:id` scheduled post; its refusal answers the list again. */
async function command(
  c: Context<ApiEnv>,
  run: (accountId: string, id: string) => Promise<unknown>,
  notice: string,
): Promise<Response> {
  const id = c.req.param("id")!;
  if (!isId(id)) return await sendAppNotFound(c, NOT_FOUND);
  try {
    await run(appViewer(c).accountId, id);
  } catch (error) {
    const refusal = refusalOf(statusErrorOf(error));
    if (!refusal) throw error;
    if (refusal.status === 404) return await sendAppNotFound(c, NOT_FOUND);
    return await listPage(c, refusal);
  }
  if (notice === "cancelled" && wantsFragment(c)) {
    return await sendFragment(
      c,
      jsx("div", { "data-remove": `scheduled-${id}`, "data-announce": NOTICES.cancelled }),
    );
  }
  return redirectAfterPost(c, "/scheduled_statuses", notice);
}

export function appScheduledRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/scheduled_statuses", appPage(), (c) => listPage(c));
  app.post("/scheduled_statuses/:id/update", appPage(), async (c) => {
    const p = apiParams(await params(c));
    return await command(c, async (accountId, id) => {
      const at = readScheduledAt(p);
      if (!at) throw validationFailed("Scheduled at can't be blank");
      await rescheduleStatus(c.get("ctx").database.db, accountId, id, at);
    }, "rescheduled");
  });
  app.post("/scheduled_statuses/:id/delete", appPage(), async (c) => {
    return await command(
      c,
      (accountId, id) => cancelScheduledStatus(c.get("ctx").database.db, accountId, id),
      "cancelled",
    );
  });
  return app;
}
