/**
 * The web app's gate and viewer. Any signed-in user may use the app; the
 * gate is the settings pages' (form_pages.ts signedInGate): a visitor's GET
 * goes to the sign-in form and comes back, a visitor's POST is a 403, every
 * POST carries the session's form token and counts in the account's write
 * bucket (plus `extraLimit`, the specific bucket of the API route doing the
 * same write). Shared paths (/, /tags/:name, /@acct…) reach the app through
 * branch.ts instead, which sets the same session.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../../api/env.ts";
import type { WebSession } from "../../../actors/auth/sessions.ts";
import type { RateLimit } from "../../../api/middleware/rate_limit.ts";
import { type BeforeBody, signedInGate } from "../form_pages.ts";
import { sendHtmlPage } from "../page_response.ts";
import { AppLayout, type AppViewer } from "../../pages/app/layout.tsx";
import type { ComposerDefaults } from "../../pages/app/composer.tsx";
import { readPreferences } from "../../../api/reads/preferences.ts";
import { getCookie } from "hono/cookie";
import { SESSION_COOKIE } from "../session_cookie.ts";
import { ensureWebToken, webTokenValue } from "../../../actors/auth/web_tokens.ts";
import { hasUnreadNotifications } from "../../../api/reads/notifications.ts";
import { wantsFragment } from "./fragments.ts";

/** The gate of an app route (see the module's comment). */
export function appPage(
  options: { beforeBody?: BeforeBody; extraLimit?: RateLimit } = {},
): MiddlewareHandler<ApiEnv> {
  const gate = signedInGate({ variable: "appSession", ...options });
  return async (c, next) =>
    await gate(c, async () => {
      await prepareAppRequest(c);
      await next();
    });
}

/**
 * What an app request needs before its handler (behind the gate or the
 * signed-in branch): the session's web token and, for a page (a GET that
 * is not the script's fragment), whether "Notifications" is marked unread.
 */
export async function prepareAppRequest(c: Context<ApiEnv>): Promise<void> {
  await attachWebToken(c);
  if (c.req.method !== "GET" || wantsFragment(c)) return;
  const { db } = c.get("ctx").database;
  c.set("appUnreadNotifications", await hasUnreadNotifications(db, appSession(c).user));
}

/**
 * Gives the app session its web token (made on its first app page) and the
 * page the token's value for the script; posts made here carry the token's
 * application, "Web", as Mastodon's web app's do.
 */
async function attachWebToken(c: Context<ApiEnv>): Promise<void> {
  const session = c.get("appSession");
  const secret = getCookie(c, SESSION_COOKIE);
  if (!session || !secret || c.get("appStreamToken")) return;
  const webToken = await ensureWebToken(c.get("ctx").database.db, session, secret);
  c.set("appSession", { ...session, webToken });
  c.set("appStreamToken", webTokenValue(secret, webToken.id));
}

/** The session of a request that passed {@link appPage} or the signed-in branch. */
export function appSession(c: Context<ApiEnv>): WebSession {
  const session = c.get("appSession");
  if (!session) throw new Error("An app route ran without the app gate");
  return session;
}

/** Who is signed in, as the layout and the components need it. */
export function appViewer(c: Context<ApiEnv>): AppViewer {
  const { user, csrfToken } = appSession(c);
  return {
    accountId: user.accountId,
    username: user.username,
    role: user.role,
    csrfToken,
    streamToken: c.get("appStreamToken") ?? null,
    unreadNotifications: c.get("appUnreadNotifications") ?? false,
  };
}

/** Sends an app page: doctype, the `app` kind's headers (page_response.ts). */
export async function sendAppPage(
  c: Context<ApiEnv>,
  page: unknown,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  return await sendHtmlPage(c, "app", page, status);
}

/** The app's 404 page, saying what is missing. */
export async function sendAppNotFound(c: Context<ApiEnv>, message: string): Promise<Response> {
  return await sendAppPage(
    c,
    <AppLayout
      title="Not found"
      instanceTitle={c.get("ctx").config.instance.title}
      viewer={appViewer(c)}
    >
      <p>{message}</p>
      <p>
        <a href="/">Back to Home</a>
      </p>
    </AppLayout>,
    404,
  );
}

/**
 * The viewer with their reading preferences, and what a new post of theirs
 * starts from: both from their preferences (GET /api/v1/preferences), one
 * query, for the pages that show posts or a composer.
 */
export async function appReader(
  c: Context<ApiEnv>,
): Promise<{ viewer: AppViewer; defaults: ComposerDefaults }> {
  const prefs = await readPreferences(c.get("ctx"), appSession(c).user.userId);
  return {
    viewer: {
      ...appViewer(c),
      reading: {
        displayMedia: prefs?.displayMedia ?? "default",
        expandSpoilers: prefs?.expandSpoilers ?? false,
      },
    },
    defaults: {
      visibility: prefs?.defaultPrivacy ?? "public",
      sensitive: prefs?.defaultSensitive ?? false,
      language: prefs?.defaultLanguage ?? null,
      quotePolicy: prefs?.defaultQuotePolicy ?? "public",
    },
  };
}
