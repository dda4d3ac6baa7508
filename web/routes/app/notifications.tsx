/**
 * The web app's notifications (design 35 §2.5, §11.1):
 * - GET /notifications: the groups GET /api/v2/notifications answers (the
 *   same read, parameters and serializer; `?types[]=mention` is the
 *   Mentions tab), 40 a page. Opening its first page moves the
 *   notifications marker to the newest notification shown, as Mastodon's web
 *   app does (the lead's decision 11): a GET that writes, as a mail inbox
 *   does, said on the page. The marker only moves forward, and another
 *   client's write at the same moment wins. Every app page marks
 *   "Notifications" while there are notifications newer than the marker
 *   (session.tsx); this page, once it moved the marker, asks again.
 * - POST /notifications/:group_key/dismiss: 303 back, or with the fragment
 *   header the group's removal.
 * - GET /notifications/clear (confirmation), POST: every notification goes.
 * - The interactions waiting for the viewer's approval (issue 34) are listed
 *   on the first page of the All tab, each with Accept and Reject: POST
 *   /interaction_requests/:id/authorize and /reject, the API's commands; 303
 *   back, or with the fragment header the row's removal.
 * - The first page links to the filtered notifications (notification
 *   requests) when there are any, and to the policy
 *   (notification_requests.tsx).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { PAGE_SIZES, readPageParams } from "../../../api/pagination.ts";
import {
  hasUnreadNotifications,
  readNotificationGroups,
} from "../../../api/reads/notifications.ts";
import { isGroupKey } from "../../../api/routes/notifications_grouped.ts";
import { notificationsMarker } from "../../../db/queries/notifications.ts";
import { pendingSummary } from "../../../db/queries/notification_requests.ts";
import { MarkerConflictError, saveMarkers } from "../../../actors/timelines/markers.ts";
import { clearNotifications, dismissGroup } from "../../../actors/notifications/dismiss.ts";
import type { AppContext } from "../../../context.ts";
import { readInteractionRequests } from "../../../api/reads/interaction_requests.ts";
import { acceptRequest, rejectRequest } from "../../../actors/interactions/requests.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { AppLayout } from "../../pages/app/layout.tsx";
import { NotificationsPage } from "../../pages/app/notifications.tsx";
import { ConfirmPage } from "../../pages/app/confirm.tsx";
import { appPage, appReader, appSession, appViewer, sendAppPage } from "./session.tsx";
import { hereWith, returnTo } from "./return_to.ts";
import { pagerLinks } from "./paging.ts";
import { redirectAfterPost, redirectWithAlert, sendFragment, wantsFragment } from "./fragments.ts";

/** Moves the notifications marker forward to `newest` (never back; a conflict is left to the other writer). */
async function markRead(ctx: AppContext, userId: string, newest: string): Promise<void> {
  const { db } = ctx.database;
  const current = await notificationsMarker(db, userId);
  if (current && BigInt(current) >= BigInt(newest)) return;
  try {
    await saveMarkers(db, userId, { notifications: newest });
  } catch (error) {
    if (!(error instanceof MarkerConflictError)) throw error;
  }
}

async function notificationsPage(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const p = await params(c);
  let { viewer } = await appReader(c);
  const read = await readNotificationGroups(ctx, viewer.accountId, p);
  const page = readPageParams(p, PAGE_SIZES.groupedNotifications);
  const first = page.maxId == null && page.minId == null && page.sinceId == null;
  const newest = read.items.reduce<string | null>(
    (max, g) =>
      max && BigInt(max) >= BigInt(g.most_recent_notification_id)
        ? max
        : g.most_recent_notification_id,
    null,
  );
  if (first && newest) {
    const { user } = appSession(c);
    await markRead(ctx, user.userId, newest);
    // Read now, unless something newer came or lies beyond this tab (Mentions).
    if (viewer.unreadNotifications) {
      viewer = {
        ...viewer,
        unreadNotifications: await hasUnreadNotifications(ctx.database.db, user),
      };
    }
  }
  const types = p.types;
  const mentions = Array.isArray(types) && types.length === 1 && types[0] === "mention";
  const approvals = first && types == null
    ? (await readInteractionRequests(ctx, viewer.accountId, {})).items
    : [];
  const filtered = first ? await pendingSummary(ctx.database.db, viewer.accountId) : undefined;
  return await sendAppPage(
    c,
    <AppLayout
      title="Notifications"
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current="notifications"
      notice={c.req.query("notice")}
      alert={c.req.query("alert")}
    >
      <NotificationsPage
        approvals={approvals}
        result={read.result}
        viewer={viewer}
        here={hereWith(c.req.url)}
        pager={pagerLinks(c, page, PAGE_SIZES.groupedNotifications, read)}
        mentions={mentions}
        filtered={filtered}
      />
    </AppLayout>,
  );
}

async function dismiss(c: Context<ApiEnv>): Promise<Response> {
  const key = c.req.param("group_key") ?? "";
  const p = await params(c);
  if (isGroupKey(key)) {
    await dismissGroup(c.get("ctx").database.db, appViewer(c).accountId, key);
  }
  if (wantsFragment(c)) {
    return await sendFragment(
      c,
      <div data-remove={`group-${key}`} data-announce="Notification dismissed"></div>,
    );
  }
  return redirectAfterPost(c, returnTo(p, "/notifications"));
}

async function clearConfirmation(c: Context<ApiEnv>): Promise<Response> {
  const viewer = appViewer(c);
  return await sendAppPage(
    c,
    <AppLayout
      title="Clear all notifications?"
      instanceTitle={c.get("ctx").config.instance.title}
      viewer={viewer}
      current="notifications"
    >
      <ConfirmPage
        action="/notifications/clear"
        token={viewer.csrfToken}
        returnTo="/notifications"
        button="Clear all"
        cancel="/notifications"
        danger
      >
        <p>Every notification you have goes, for good.</p>
      </ConfirmPage>
    </AppLayout>,
  );
}

/** Accepts or rejects an interaction request (a decided or foreign one: an alert). */
function decideRequest(command: typeof acceptRequest, done: string) {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const id = c.req.param("id")!;
    const p = await params(c);
    const back = returnTo(p, "/notifications");
    try {
      await command(c.get("ctx"), appViewer(c).accountId, id);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      if (!wantsFragment(c)) return redirectWithAlert(c, back, "not_found");
    }
    if (wantsFragment(c)) {
      return await sendFragment(c, <div data-remove={`approval-${id}`} data-announce={done}></div>);
    }
    return redirectAfterPost(c, back);
  };
}

export function appNotificationRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/notifications", appPage(), notificationsPage);
  app.get("/notifications/clear", appPage(), clearConfirmation);
  app.post("/notifications/clear", appPage(), async (c) => {
    await clearNotifications(c.get("ctx").database.db, appViewer(c).accountId);
    return redirectAfterPost(c, "/notifications", "cleared");
  });
  app.post("/notifications/:group_key/dismiss", appPage(), dismiss);
  app.post(
    "/interaction_requests/:id{[0-9]+}/authorize",
    appPage(),
    decideRequest(acceptRequest, "Accepted"),
  );
  app.post(
    "/interaction_requests/:id{[0-9]+}/reject",
    appPage(),
    decideRequest(rejectRequest, "Rejected"),
  );
  return app;
}
