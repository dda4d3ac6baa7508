/**
 * The web app (design 35): a signed-in person reads and writes from any
 * browser, with or without JavaScript. Each file below owns a group of
 * routes (design §2); this one mounts them all. app.ts mounts this after the
 * feeds (`/@name.rss`, `/tags/x.rss` stay feeds) and before the public
 * pages, whose paths `/`, `/tags/:name`, `/@acct` and `/@acct/:id` it shares
 * through signedInBranch (branch.ts): without a live session they fall
 * through to the public page.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { appTimelineRoutes } from "./timelines.tsx";
import { appStatusRoutes } from "./statuses.tsx";
import { appStatusEditRoutes } from "./status_edits.tsx";
import { appScheduledRoutes } from "./scheduled.tsx";
import { appMediaRoutes } from "./media.ts";
import { appThreadRoutes } from "./threads.tsx";
import { appInteractionRoutes } from "./interactions.ts";
import { appAccountRoutes } from "./accounts.tsx";
import { appReportRoutes } from "./reports.tsx";
import { appNotificationRoutes } from "./notifications.tsx";
import { appNotificationRequestRoutes } from "./notification_requests.tsx";
import { appConversationRoutes } from "./conversations.tsx";
import { appCollectionRoutes } from "./collections.tsx";
import { appListRoutes } from "./lists.tsx";
import { appFollowRequestRoutes } from "./follow_requests.tsx";
import { appSearchRoutes } from "./search.tsx";
import { appShortcutRoutes } from "./shortcuts.tsx";

export function webAppRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.route("/", appTimelineRoutes());
  app.route("/", appStatusRoutes());
  app.route("/", appStatusEditRoutes());
  app.route("/", appScheduledRoutes());
  app.route("/", appMediaRoutes());
  app.route("/", appThreadRoutes());
  app.route("/", appInteractionRoutes());
  app.route("/", appAccountRoutes());
  app.route("/", appReportRoutes());
  // Before appNotificationRoutes, whose /notifications/:group_key/… would take these paths.
  app.route("/", appNotificationRequestRoutes());
  app.route("/", appNotificationRoutes());
  app.route("/", appConversationRoutes());
  app.route("/", appCollectionRoutes());
  app.route("/", appListRoutes());
  app.route("/", appFollowRequestRoutes());
  app.route("/", appSearchRoutes());
  app.route("/", appShortcutRoutes());
  return app;
}
