/**
 * The gate of every /settings page: the browser's session (the OAuth
 * sign-in's cookie) of a user who may sign in. No session → the sign-in
 * form, coming back here. Every POST must carry the session's form token,
 * so another site cannot make a signed-in browser change its settings.
 */
import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "../../env.ts";
import { loginRefusal } from "../../../actors/sessions.ts";
import { constantTimeEqual } from "../../../actors/oauth.ts";
import { currentSession, endSession } from "../authorize_request.ts";
import { MessagePage } from "../../pages/auth/layout.tsx";
import { formField, formParams, sendAccountPage } from "./page.ts";

export const settingsGate: MiddlewareHandler<ApiEnv> = async (c, next) => {
  let session = await currentSession(c);
  if (session && loginRefusal(session.user.state)) {
    await endSession(c, session);
    session = null;
  }
  const forbidden = () =>
    sendAccountPage(
      c,
      <MessagePage
        title="Forbidden"
        instanceTitle={c.get("ctx").config.instance.title}
        text="This form expired or did not come from this site. Please reload the page and try again."
        alert
      />,
      403,
    );
  if (!session) {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return await forbidden();
    const url = new URL(c.req.url);
    const back = encodeURIComponent(url.pathname + url.search);
    return c.redirect(`/auth/sign_in?redirect_to=${back}`, 303);
  }
  if (c.req.method === "POST") {
    const p = await formParams(c);
    const presented = p ? formField(p, "authenticity_token", 200) : "";
    if (!presented || !constantTimeEqual(presented, session.csrfToken)) return await forbidden();
  }
  c.set("settings", session);
  await next();
};
