/**
 * The headers of every HTML page, in one table: the Content-Security-Policy
 * and its companions (caching, framing, referrer). Every page sender
 * (public_page_kit.ts, form_pages.ts, web_account/page.ts, the OAuth flow in
 * authorize_request.ts, the embed page, the e-mail confirmation page, the
 * sign-in 429) comes here, so a page cannot drift into a laxer policy.
 *
 * What all the policies share: nothing runs (no script-src, so no script
 * at all — except the web app's one file on `app` pages), styles come only from our own stylesheet file (`style-src
 * 'self'`: no inline style, not even an attribute), nothing else loads but
 * the images (and on public pages media) a page shows, no <base>, and no
 * framing except the embed page's, which exists to be framed.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../api/env.ts";
import { documentHtml, renderDocument } from "../pages/shell.tsx";
import { carriesSession } from "./session_cookie.ts";

/**
 * - `public`: landing, about, profiles, posts, tags. Cacheable, unless the
 *   request carries a session cookie (every kind: see pageHeaders); shows
 *   remote images and media (avatars, attachments of other servers).
 * - `form`: the signed-in pages (settings, staff): never cached, remote
 *   images over https (report evidence, profiles).
 * - `account`: before and around signing in (sign-up, password reset, the
 *   second factor, e-mail confirmation): never cached, no referrer, no
 *   remote images.
 * - `oauth`: the sign-in and consent pages of the OAuth flow: as `account`,
 *   but without `form-action`, which browsers apply to the redirect after
 *   a form post, and the consent form redirects to any client's URI.
 * - `embed`: the post framed by other sites (oEmbed): any site may frame
 *   it, it may show any image, and it has no form.
 * - `app`: the signed-in web app (web/routes/app/): as `form`, plus media,
 *   the one script file of the app (its exact URL, nothing inline), fetches
 *   and the streaming WebSocket to our own origin, and Trusted Types, so the
 *   script's one HTML sink goes through its one named policy.
 */
export type PageKind = "public" | "form" | "account" | "oauth" | "embed" | "app";

/** Where the web app's one script is served (web/routes/assets.ts); `app` pages may run it. */
export const APP_SCRIPT_PATH = "/assets/rookery.js";

interface Policy {
  images: string;
  media?: string;
  formAction: string | null;
  frameAncestors: string;
  noStore: boolean;
  referrer: "same-origin" | "no-referrer";
  /** The web app's script, fetches and socket (scriptDirectives). */
  script?: boolean;
}

const POLICIES: Record<PageKind, Policy> = {
  public: {
    images: "'self' data: https: http:",
    media: "'self' https: http:",
    formAction: "'self'",
    frameAncestors: "'none'",
    noStore: false,
    referrer: "same-origin",
  },
  form: {
    images: "'self' data: https:",
    formAction: "'self'",
    frameAncestors: "'none'",
    noStore: true,
    referrer: "same-origin",
  },
  account: {
    images: "'self' data:",
    formAction: "'self'",
    frameAncestors: "'none'",
    noStore: true,
    referrer: "no-referrer",
  },
  oauth: {
    images: "'self' data:",
    formAction: null,
    frameAncestors: "'none'",
    noStore: true,
    referrer: "no-referrer",
  },
  embed: {
    images: "* data:",
    formAction: "'none'",
    frameAncestors: "*",
    noStore: false,
    referrer: "same-origin",
  },
  app: {
    images: "'self' data: https: http:",
    media: "'self' https: http:",
    formAction: "'self'",
    frameAncestors: "'none'",
    noStore: true,
    referrer: "same-origin",
    script: true,
  },
};

/**
 * What only `app` pages add: the script by its exact URL (a path match
 * ignores the `?v=` hash), `fetch` to ourselves and the streaming socket
 * (named, rather than trusting CSP3's mapping of 'self' to ws:), and
 * Trusted Types with the script's one policy.
 */
function scriptDirectives(origin: string): string[] {
  const url = new URL(origin);
  const ws = `${url.protocol === "https:" ? "wss:" : "ws:"}//${url.host}`;
  return [
    `script-src ${url.origin}${APP_SCRIPT_PATH}`,
    `connect-src 'self' ${ws}`,
    "require-trusted-types-for 'script'",
    "trusted-types rookery",
  ];
}

/**
 * The Content-Security-Policy of a kind of page. `mediaOrigin`: where our
 * media files are served from when it is not our origin (S3_ALIAS_HOST),
 * which every page may show images and media from. `origin`: ours
 * (config.origin), which `app` pages need to name their script and socket.
 */
export function contentSecurityPolicy(
  kind: PageKind,
  mediaOrigin: string | null = null,
  origin: string | null = null,
): string {
  const p = POLICIES[kind];
  const extra = mediaOrigin ? ` ${mediaOrigin}` : "";
  if (p.script && !origin) throw new TypeError(`The ${kind} policy needs the origin`);
  return [
    "default-src 'none'",
    ...(p.script ? scriptDirectives(origin!).slice(0, 1) : []),
    "style-src 'self'",
    `img-src ${p.images}${extra}`,
    p.media ? `media-src ${p.media}${extra}` : null,
    ...(p.script ? scriptDirectives(origin!).slice(1, 2) : []),
    p.formAction ? `form-action ${p.formAction}` : null,
    `frame-ancestors ${p.frameAncestors}`,
    "base-uri 'none'",
    ...(p.script ? scriptDirectives(origin!).slice(2) : []),
  ].filter(Boolean).join("; ");
}

/**
 * The headers of a kind of page, as a record (for responses built by hand).
 * `signedIn`: the request carries a session cookie, so the page may hold the
 * user's name and form token and is stored by no cache, whatever its kind.
 * Cacheable pages say they vary by cookie, so a shared cache never hands a
 * signed-in browser the page a visitor got (or the other way round).
 */
export function pageHeaders(
  kind: PageKind,
  signedIn = false,
  mediaOrigin: string | null = null,
  origin: string | null = null,
): Record<string, string> {
  const p = POLICIES[kind];
  const headers: Record<string, string> = {
    "Content-Security-Policy": contentSecurityPolicy(kind, mediaOrigin, origin),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": p.referrer,
  };
  if (p.frameAncestors === "'none'") headers["X-Frame-Options"] = "DENY";
  if (p.noStore || signedIn) headers["Cache-Control"] = "private, no-store";
  else headers["Vary"] = "Cookie";
  return headers;
}

/**
 * Sets the headers of a kind of page on the response being built.
 * `personal`: the page holds something of this browser's even without a
 * session (a visitor's form token, its cookie set with it), so it is stored
 * by no cache, as a signed-in browser's page.
 */
export function setPageHeaders(c: Context<ApiEnv>, kind: PageKind, personal = false): void {
  const { config, media } = c.get("ctx");
  const mediaOrigin = new URL(media.urlBase).origin;
  const headers = pageHeaders(
    kind,
    personal || carriesSession(c),
    mediaOrigin === config.origin ? null : mediaOrigin,
    config.origin,
  );
  for (const [name, value] of Object.entries(headers)) {
    // A route may vary by more (a profile negotiates Accept): add, never replace.
    c.header(name, value, { append: name === "Vary" });
  }
}

/**
 * Sends a JSX page (Hono escapes every value) with its doctype and the
 * headers of its kind ({@link setPageHeaders} for `personal`).
 */
export async function sendHtmlPage(
  c: Context<ApiEnv>,
  kind: PageKind,
  page: unknown,
  status: ContentfulStatusCode = 200,
  personal = false,
): Promise<Response> {
  setPageHeaders(c, kind, personal);
  return c.html(await renderDocument(page), status);
}

/** {@link sendHtmlPage} for a caller that cannot await (the OAuth flow's synchronous pages). */
export function sendHtmlPageNow(
  c: Context<ApiEnv>,
  kind: PageKind,
  page: unknown,
  status: ContentfulStatusCode = 200,
): Response {
  setPageHeaders(c, kind);
  return c.html(documentHtml(page), status);
}
