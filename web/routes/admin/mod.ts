/**
 * The staff pages under /admin: server-rendered Hono JSX, signed in with the
 * browser session of the OAuth sign-in (session.ts). Each page acts through
 * the same actors as the admin API and the admin command, so an action here
 * is checked, written and audited exactly as it is there.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { accountPages } from "./accounts.tsx";
import { domainBlockPages } from "./domain_blocks.tsx";
import { dashboardPages } from "./dashboard.tsx";
import { reportPages } from "./reports.tsx";
import { roleSettingsPages } from "./role_settings.tsx";
import { staffPage } from "./session.ts";

export function adminWebRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  // Every path under /admin, known or not, any method: staff only (all staff
  // roles view the dashboard), and a form post needs the session's token.
  // Each page then asks for its own permission.
  app.use("/admin", staffPage("view_dashboard"));
  app.use("/admin/*", staffPage("view_dashboard"));
  app.route("/", accountPages());
  app.route("/", domainBlockPages());
  app.route("/", dashboardPages());
  app.route("/", reportPages());
  app.route("/", roleSettingsPages());
  return app;
}
