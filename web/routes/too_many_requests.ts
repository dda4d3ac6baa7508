/**
 * A 429 as a browser gets it: a page for the sign-in form (a browser's
 * `Accept`) and for the paths that only ever answer with pages (settings
 * and staff); every other request gets the API's JSON answer
 * (api/middleware/rate_limit.ts). app.ts gives it to the rate limit
 * middleware; the page routes that count their own limits call it too.
 */
import type { Context } from "hono";
import type { ApiEnv } from "../../api/env.ts";
import {
  type BucketState,
  refusalHeaders,
  TOO_MANY_REQUESTS,
  tooManyRequestsJson,
  wantsHtml,
} from "../../api/middleware/rate_limit.ts";
import { MessagePage } from "../pages/auth/layout.tsx";
import { documentHtml } from "../pages/shell.tsx";
import { pageHeaders } from "./page_response.ts";

/** Paths that only ever answer with pages (settings and staff), whatever the Accept header. */
const PAGE_ONLY_PATH = /^\/(settings|admin)(\/|$)/;

/** A 429 in Mastodon's shape; a page for a browser's sign-in form and the pages with forms. */
export function tooManyRequests(c: Context<ApiEnv>, state: BucketState, now: Date): Response {
  const signIn = c.req.path.startsWith("/auth/") && wantsHtml(c);
  if (!signIn && !PAGE_ONLY_PATH.test(c.req.path)) return tooManyRequestsJson(c, state, now);
  const page = MessagePage({
    title: TOO_MANY_REQUESTS,
    instanceTitle: c.get("ctx").config.instance.title,
    text: signIn
      ? "Too many sign-in attempts. Please wait a few minutes and try again."
      : "Too many requests. Please wait a few minutes and try again.",
    alert: true,
  });
  return c.html(documentHtml(page), 429, {
    ...refusalHeaders(state, now),
    ...pageHeaders("account"),
  });
}
