/** GET /admin: the staff dashboard. */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { dashboardCounts } from "../../../db/queries/admin_dashboard.ts";
import { Dashboard } from "../../pages/admin/dashboard.tsx";
import { ROOKERY_VERSION } from "../../../version.ts";
import { staffPage, staffViewer } from "./session.ts";
import { sendFramed } from "./page_frame.tsx";

export function dashboardPages(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/admin", staffPage("view_dashboard"), async (c) => {
    const counts = await dashboardCounts(c.get("ctx").database);
    return await sendFramed(c, {
      title: "Dashboard",
      section: "dashboard",
      body: <Dashboard counts={counts} role={staffViewer(c).role} version={ROOKERY_VERSION} />,
    });
  });
  return app;
}
