/** GET /admin: the staff dashboard. */
import { Hono } from "hono";
import type { ApiEnv } from "../../env.ts";
import { dashboardCounts } from "../../../db/queries/admin_dashboard.ts";
import { AdminLayout } from "../../pages/admin/layout.tsx";
import { Dashboard } from "../../pages/admin/dashboard.tsx";
import { ROOKERY_VERSION } from "../../../version.ts";
import { sendStaffPage, staffPage, staffViewer } from "./session.ts";

export function dashboardPages(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/admin", staffPage("view_dashboard"), async (c) => {
    const { config, database } = c.get("ctx");
    const viewer = staffViewer(c);
    const counts = await dashboardCounts(database);
    return await sendStaffPage(
      c,
      <AdminLayout
        title="Dashboard"
        instanceTitle={config.instance.title}
        viewer={viewer}
        section="dashboard"
        notice={c.req.query("notice")}
      >
        <Dashboard counts={counts} role={viewer.role} version={ROOKERY_VERSION} />
      </AdminLayout>,
    );
  });
  return app;
}
