/** The Hono environment: what the server passes in, and what middleware sets per request. */
import type { AppContext } from "../context.ts";
import type { AuthToken, AuthUser } from "./auth_types.ts";
import type { WebSession } from "../actors/auth/sessions.ts";
import type { Params } from "./params.ts";
import type { RouteRecord } from "../telemetry/http.ts";

export interface ApiEnv {
  Bindings: {
    /** The connection info from Deno.serve (absent when a test calls app.fetch bare). */
    info?: Deno.ServeHandlerInfo;
    /**
     * The request as the connection delivered it. Behind a trusted proxy the
     * app sees a copy rebuilt with the public URL (api/forwarded.ts), which
     * Deno cannot upgrade to a WebSocket: the streaming route upgrades this one.
     */
    connectionRequest?: Request;
    /** Where the route that answered is written, for the request metrics (telemetry/http.ts). */
    route?: RouteRecord;
  };
  Variables: {
    ctx: AppContext;
    /** The bearer token of the request, when one was sent and is valid (set by auth). */
    token: AuthToken | null;
    /** The token's user, for user tokens (set by auth). */
    user: AuthUser | null;
    /** The signed-in staff member's browser session, on the /admin pages (set by staffPage). */
    staff: WebSession | null;
    /** The signed-in user's browser session, on the /settings pages (set by userPage). */
    settingsSession: WebSession | null;
    /** The signed-in user's browser session, on the web app's pages (set by appPage). */
    appSession?: WebSession | null;
    /** The app page's streaming token for its script (actors/auth/web_tokens.ts). */
    appStreamToken?: string;
    /** Whether an app page marks "Notifications" as having unread ones (app/session.tsx). */
    appUnreadNotifications?: boolean;
    /** The request's parameters, once parsed (api/params.ts): a body is read once. */
    params?: Promise<Params>;
    /** Set when Fedify answered the request itself (app.ts), for the request metrics. */
    answeredByFederation?: true;
  };
}
