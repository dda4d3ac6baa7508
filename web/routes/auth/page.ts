/**
 * What every account page (sign-up, password reset, later the settings)
 * shares: strict headers (no script, no framing, forms to us only), and the
 * double-submit form token of the pages a visitor sees before signing in —
 * the same cookie the sign-in form uses (authorize_request.ts), so another
 * site cannot post these forms from a visitor's browser.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import { constantTimeEqual } from "../../../actors/oauth/oauth.ts";
import { signInCsrfCookie } from "./authorize_request.ts";
import { sendHtmlPage } from "../page_response.ts";

/** Sends a JSX page (Hono escapes every value) with the account pages' headers (page_response.ts). */
export async function sendAccountPage(
  c: Context<ApiEnv>,
  page: unknown,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  return await sendHtmlPage(c, "account", page, status);
}

/** The form's parameters, or null when the body cannot be read. */
export async function formParams(c: Context<ApiEnv>): Promise<Params | null> {
  try {
    return await params(c);
  } catch {
    return null;
  }
}

/** A string field of a form, cut to `max` characters ("" when absent or not a string). */
export function formField(p: Params, key: string, max: number): string {
  const value = p[key];
  return typeof value === "string" ? value.slice(0, max) : "";
}

/** Whether the form carries the token of the browser's form cookie. */
export function formTokenMatches(c: Context<ApiEnv>, p: Params): boolean {
  const cookie = signInCsrfCookie(c);
  const presented = formField(p, "authenticity_token", 200);
  return !!cookie && !!presented && constantTimeEqual(cookie, presented);
}
