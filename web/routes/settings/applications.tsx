/**
 * /settings/applications (authorized apps, each with its scopes and a
 * revoke button) and /settings/sessions (browser sessions, with sign-out of
 * one or of all others), for the signed-in user (the settings gate, web/routes/settings/session.ts). Someone
 * else's app or session id answers 404, as an unknown one does.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import {
  authorizedApps,
  endOtherSessions,
  endUserSession,
  listSessions,
  revokeAuthorizedApp,
} from "../../../actors/oauth/authorized_apps.ts";
import { ApplicationsPage, SessionsPage } from "../../pages/settings/applications.tsx";
import { MessagePage } from "../../pages/auth/layout.tsx";
import { sendAccountPage } from "../auth/page.ts";
import { settingsSession, userPage } from "./session.ts";

const NOTICES: Record<string, string> = {
  revoked: "The app was revoked: it can no longer use your account.",
  ended: "That session was signed out.",
  ended_others: "Every other session was signed out.",
};

function notFound(c: Context<ApiEnv>) {
  return sendAccountPage(
    c,
    <MessagePage
      title="Not found"
      instanceTitle={c.get("ctx").config.instance.title}
      text="There is nothing like that on your account."
      alert
    />,
    404,
  );
}

function viewerOf(c: Context<ApiEnv>) {
  const session = settingsSession(c);
  return { username: session.user.username, csrfToken: session.csrfToken };
}

export function settingsRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  for (const path of ["/settings/applications", "/settings/sessions"]) {
    app.use(path, userPage());
    app.use(`${path}/*`, userPage());
  }

  app.get("/settings/applications", async (c) => {
    const { config, database } = c.get("ctx");
    const apps = await authorizedApps(database.db, settingsSession(c).user.userId);
    return await sendAccountPage(
      c,
      <ApplicationsPage
        instanceTitle={config.instance.title}
        viewer={viewerOf(c)}
        apps={apps}
        notice={NOTICES[c.req.query("notice") ?? ""]}
      />,
    );
  });

  app.post("/settings/applications/:id/revoke", async (c) => {
    const db = c.get("ctx").database.db;
    const ok = await revokeAuthorizedApp(db, settingsSession(c).user.userId, c.req.param("id"));
    if (!ok) return await notFound(c);
    return c.redirect("/settings/applications?notice=revoked", 303);
  });

  app.get("/settings/sessions", async (c) => {
    const { config, database } = c.get("ctx");
    const session = settingsSession(c);
    return await sendAccountPage(
      c,
      <SessionsPage
        instanceTitle={config.instance.title}
        viewer={viewerOf(c)}
        sessions={await listSessions(database.db, session.user.userId)}
        currentId={session.id}
        notice={NOTICES[c.req.query("notice") ?? ""]}
      />,
    );
  });

  app.post("/settings/sessions/end_others", async (c) => {
    const session = settingsSession(c);
    await endOtherSessions(c.get("ctx").database.db, session.user.userId, session.id);
    return c.redirect("/settings/sessions?notice=ended_others", 303);
  });

  app.post("/settings/sessions/:id/end", async (c) => {
    const session = settingsSession(c);
    const id = c.req.param("id");
    // Signing this browser out goes through /auth/sign_out, which clears the cookie too.
    if (id === session.id) return await notFound(c);
    const ok = await endUserSession(c.get("ctx").database.db, session.user.userId, id);
    if (!ok) return await notFound(c);
    return c.redirect("/settings/sessions?notice=ended", 303);
  });

  return app;
}
