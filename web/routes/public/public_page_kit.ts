/**
 * What every public page route shares: the response (doctype, the public
 * pages' headers of page_response.ts), who is looking (a browser session, for the
 * header only: the pages show what anyone may see), and the "older" link of
 * a paged list.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type Child, jsx } from "hono/jsx";
import type { ApiEnv } from "../../../api/env.ts";
import { currentSession } from "../auth/authorize_request.ts";
import { sendHtmlPage } from "../page_response.ts";
import { loginRefusal } from "../../../actors/auth/sessions.ts";
import type { PublicViewer } from "../../pages/public/layout.tsx";
import { MessagePage, SiteDocuments } from "../../pages/public/layout.tsx";

/** Posts per page of a profile or a tag, as Mastodon's web pages list them. */
export const PAGE_LIMIT = 20;

/**
 * Sends a JSX page (Hono escapes every value) with the public pages' headers
 * (page_response.ts); `personal` when it holds a visitor's form token.
 */
export async function sendPublicPage(
  c: Context<ApiEnv>,
  page: unknown,
  status: ContentfulStatusCode = 200,
  personal = false,
): Promise<Response> {
  const { instance } = c.get("ctx").config;
  // The footer links the legal documents only when they are configured.
  const documents = {
    privacy: instance.privacyPolicyFile != null,
    terms: instance.termsOfServiceFile != null,
  };
  const wrapped = jsx(SiteDocuments.Provider, { value: documents }, page as Child);
  return await sendHtmlPage(c, "public", wrapped, status, personal);
}

/** The signed-in browser, if any (a suspended or disabled user counts as nobody). */
export async function publicViewer(c: Context<ApiEnv>): Promise<PublicViewer | null> {
  const session = await currentSession(c);
  if (!session || loginRefusal(session.user.state)) return null;
  return { username: session.user.username, csrfToken: session.csrfToken };
}

/**
 * Whether PUBLIC_PREVIEW=false keeps this request out of what it closes to
 * visitors (the hashtag pages and feeds, as the API's public and hashtag
 * timelines): true for anyone not signed in.
 */
export async function closedToVisitor(c: Context<ApiEnv>): Promise<boolean> {
  return !c.get("ctx").config.publicPreview && !(await publicViewer(c));
}

/** A 404 or 410 page with a sentence of why. */
export async function sendMessagePage(
  c: Context<ApiEnv>,
  status: 404 | 410,
  title: string,
  message: string,
): Promise<Response> {
  const instanceTitle = c.get("ctx").config.instance.title;
  return await sendPublicPage(c, MessagePage({ instanceTitle, title, message }), status);
}

/** The link to the next (older) page: only when this one was full. */
export function olderLink(path: string, rows: readonly { id: string }[]): string | null {
  if (rows.length < PAGE_LIMIT) return null;
  return `${path}?max_id=${rows[rows.length - 1].id}`;
}

/** The max_id of the request, when it is an id (anything else means the first page). */
export function maxIdOf(c: Context<ApiEnv>): string | null {
  const value = c.req.query("max_id");
  return value && /^[0-9]{1,19}$/.test(value) ? value : null;
}
