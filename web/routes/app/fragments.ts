/**
 * The fragment protocol of the web app. The script sends a form (or asks a
 * page) with `Rookery-Fragment: 1`; the server answers the HTML to swap in,
 * with no doctype, as top-level elements each carrying one instruction:
 * - `data-replace="<id>"`: this element replaces the element with that id;
 * - `data-prepend="<id>"` / `data-append="<id>"`: this element is a wrapper,
 *   its children go at the start / end of the element with that id;
 * - `data-remove="<id>"`: the element with that id goes (this one is empty);
 * and optionally `data-announce="<text>"` for the live region. Without the
 * header the same route answers its page or its 303, so everything works
 * without the script. Responses vary by the header.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../../api/env.ts";
import { setPageHeaders } from "../page_response.ts";

export const FRAGMENT_HEADER = "Rookery-Fragment";

/** Whether the script asked for a fragment rather than a page. */
export function wantsFragment(c: Context<ApiEnv>): boolean {
  return c.req.header(FRAGMENT_HEADER) === "1";
}

/** Sends a fragment: the app's headers, `Vary` on the header, the HTML alone. */
export async function sendFragment(
  c: Context<ApiEnv>,
  fragment: unknown,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  setPageHeaders(c, "app");
  c.header("Vary", FRAGMENT_HEADER, { append: true });
  const html = await (fragment as { toString(): string | Promise<string> }).toString();
  return c.html(html, status);
}

/** The parameters that say how the last action went (pages/app/notices.tsx). */
const OUTCOME_PARAMS = ["notice", "alert"];

/**
 * `path` with one query parameter added, before any `#anchor`. A notice or
 * alert already there (a `return_to` taken from a page that showed one)
 * goes: the page says how this action went, not the one before it.
 */
export function withParam(path: string, name: string, value: string): string {
  const hash = path.indexOf("#");
  const [base, anchor] = hash < 0 ? [path, ""] : [path.slice(0, hash), path.slice(hash)];
  const question = base.indexOf("?");
  const pathname = question < 0 ? base : base.slice(0, question);
  const kept = question < 0
    ? []
    : base.slice(question + 1).split("&").filter((pair) =>
      pair !== "" && !OUTCOME_PARAMS.includes(decodeURIComponent(pair.split("=")[0]))
    );
  kept.push(`${name}=${encodeURIComponent(value)}`);
  return `${pathname}?${kept.join("&")}${anchor}`;
}

/** The 303 after a successful form post, with a notice key (pages/app/notices.tsx) or none. */
export function redirectAfterPost(c: Context<ApiEnv>, path: string, notice?: string): Response {
  setPageHeaders(c, "app");
  return c.redirect(notice ? withParam(path, "notice", notice) : path, 303);
}

/** The 303 after a refused one-button action, with an alert key. */
export function redirectWithAlert(c: Context<ApiEnv>, path: string, alert: string): Response {
  setPageHeaders(c, "app");
  return c.redirect(withParam(path, "alert", alert), 303);
}
