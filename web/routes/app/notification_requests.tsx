/**
 * The web app's filtered notifications and notification policy (design 35
 * §2.5), on the API's reads and commands:
 * - GET /notifications/requests (`?dismissed=true`: the dismissed ones):
 *   readNotificationRequests, 40 a page as the API.
 * - GET /notifications/requests/:id: that sender's notifications, filtered
 *   ones included (the grouped read with `account_id` and
 *   `include_filtered`, as Mastodon's web app asks); someone else's or an
 *   unknown request is a 404 page.
 * - POST /notifications/requests/:id/accept|dismiss (someone else's: an
 *   alert) and POST /notifications/requests/accept|dismiss with `id[]` (ids
 *   that are not the viewer's are skipped, as the API's bulk calls): 303 to
 *   `return_to`, else the list.
 * - GET, POST /notifications/policy: the five conditions of the v2 policy,
 *   each accept, filter or ignore (drop); a refused value comes back as a
 *   422 page, nothing changed.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import { PAGE_SIZES, readPageParams } from "../../../api/pagination.ts";
import { readBoolean, readStringArray } from "../../../api/readers.ts";
import { readNotificationRequests } from "../../../api/reads/notification_requests.ts";
import { readNotificationGroups } from "../../../api/reads/notifications.ts";
import { serializeNotificationRequests } from "../../../api/entities/notification_request.ts";
import {
  findNotificationRequest,
  pendingSummary,
} from "../../../db/queries/notification_requests.ts";
import {
  POLICY_PARAMS,
  policyOf,
  type PolicyParam,
  updatePolicy,
} from "../../../actors/notifications/policy.ts";
import {
  acceptRequests,
  dismissRequests,
  MAX_BULK_IDS,
} from "../../../actors/notifications/requests.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { PolicyForm, RequestPage, RequestsPage } from "../../pages/app/notification_requests.tsx";
import { refusalOf } from "../refusals.ts";
import { appPage, appReader, appViewer, sendAppNotFound, sendAppPage } from "./session.tsx";
import { hereWith, returnTo } from "./return_to.ts";
import { pagerLinks } from "./paging.ts";
import { redirectAfterPost, redirectWithAlert } from "./fragments.ts";

const LIST = "/notifications/requests";

async function requestsPage(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const p = await params(c);
  const { viewer } = await appReader(c);
  const read = await readNotificationRequests(ctx, viewer.accountId, p);
  const page = readPageParams(p, PAGE_SIZES.notificationRequests);
  return await sendAppPage(
    c,
    <AppLayout
      title="Filtered notifications"
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current="notifications"
      notice={c.req.query("notice")}
      alert={c.req.query("alert")}
    >
      <RequestsPage
        requests={read.items}
        viewer={viewer}
        here={hereWith(c.req.url)}
        pager={pagerLinks(c, page, PAGE_SIZES.notificationRequests, read)}
        dismissed={readBoolean(p, "dismissed") ?? false}
      />
    </AppLayout>,
  );
}

async function requestPage(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const { viewer } = await appReader(c);
  const row = await findNotificationRequest(ctx.database.db, viewer.accountId, c.req.param("id")!);
  const [request] = row ? await serializeNotificationRequests(ctx, [row], viewer.accountId) : [];
  if (!request) return await sendAppNotFound(c, "This request does not exist, or is not yours.");
  const p = await params(c);
  const query: Params = { ...p, account_id: request.account.id, include_filtered: "true" };
  const read = await readNotificationGroups(ctx, viewer.accountId, query);
  const page = readPageParams(p, PAGE_SIZES.groupedNotifications);
  return await sendAppPage(
    c,
    <AppLayout
      title={`Notifications from @${request.account.acct}`}
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current="notifications"
    >
      <RequestPage
        request={request}
        result={read.result}
        viewer={viewer}
        here={hereWith(c.req.url)}
        pager={pagerLinks(c, page, PAGE_SIZES.groupedNotifications, read)}
      />
    </AppLayout>,
  );
}

/** Accepts or dismisses requests: one by path (`single`), or the ticked `id[]`. */
function answer(command: typeof acceptRequests, single: boolean) {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const p = await params(c);
    const ids = single
      ? [c.req.param("id")!]
      : (readStringArray(p, "id") ?? []).slice(0, MAX_BULK_IDS);
    const back = returnTo(p, LIST);
    try {
      await c.get("ctx").database.db.transaction((tx) =>
        command(tx, appViewer(c).accountId, ids, { single })
      );
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      return redirectWithAlert(c, back, "not_found");
    }
    return redirectAfterPost(c, back);
  };
}

async function policyPage(c: Context<ApiEnv>, error?: string): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const [policy, summary] = await Promise.all([
    policyOf(ctx.database.db, viewer.accountId),
    pendingSummary(ctx.database.db, viewer.accountId),
  ]);
  return await sendAppPage(
    c,
    <AppLayout
      title="Notification settings"
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current="notifications"
      notice={c.req.query("notice")}
    >
      <PolicyForm policy={policy} token={viewer.csrfToken} summary={summary} error={error} />
    </AppLayout>,
    error ? 422 : 200,
  );
}

async function savePolicy(c: Context<ApiEnv>): Promise<Response> {
  const p = await params(c);
  const changes: Partial<Record<PolicyParam, string>> = {};
  for (const param of Object.keys(POLICY_PARAMS) as PolicyParam[]) {
    const value = p[param];
    if (value != null) changes[param] = typeof value === "string" ? value : "";
  }
  try {
    await updatePolicy(c.get("ctx").database.db, appViewer(c).accountId, changes);
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    return await policyPage(c, refusal.message);
  }
  return redirectAfterPost(c, "/notifications/policy", "saved");
}

export function appNotificationRequestRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get(LIST, appPage(), requestsPage);
  app.post(`${LIST}/accept`, appPage(), answer(acceptRequests, false));
  app.post(`${LIST}/dismiss`, appPage(), answer(dismissRequests, false));
  app.get(`${LIST}/:id{[0-9]+}`, appPage(), requestPage);
  app.post(`${LIST}/:id{[0-9]+}/accept`, appPage(), answer(acceptRequests, true));
  app.post(`${LIST}/:id{[0-9]+}/dismiss`, appPage(), answer(dismissRequests, true));
  app.get("/notifications/policy", appPage(), (c) => policyPage(c));
  app.post("/notifications/policy", appPage(), savePolicy);
  return app;
}
