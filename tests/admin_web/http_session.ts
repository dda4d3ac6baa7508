/**
 * A staff page session over plain HTTP (no browser): signs in through the
 * sign-in form as a browser would, and posts forms with the session's token,
 * for the tests of what a hostile or careless client sends. Also the staff
 * page tests' check that a page's text holds a part.
 */
import assert from "node:assert/strict";
import { type TestInstance } from "../harness.ts";
import { TEST_PASSWORD } from "../fixtures/users.ts";
import { findWebSession } from "../../actors/auth/sessions.ts";

/** `text` contains `part` (with both in the failure message). */
export function includes(text: string, part: string): void {
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in ${JSON.stringify(text)}`);
}

export interface PageSession {
  /** The session cookie (`name=value`). */
  cookie: string;
  /** The session's form token (read from a staff page). */
  token: string;
  get(path: string): Promise<Response>;
  /** Posts `fields` as a form, with the token unless `fields` sets authenticity_token. */
  post(path: string, fields?: Record<string, string>): Promise<Response>;
}

/** Signs `login` in through /auth/sign_in (coming back to `page`). */
export async function signInOverHttp(
  instance: TestInstance,
  login: string,
  page = "/admin",
): Promise<PageSession> {
  const form = await instance.request(`/auth/sign_in?redirect_to=${encodeURIComponent(page)}`);
  const csrfCookie = form.headers.get("set-cookie")!.split(";")[0];
  const formToken = (await form.text()).match(/name="authenticity_token" value="([^"]+)"/)![1];
  const signIn = await instance.request("/auth/sign_in", {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
    body: new URLSearchParams({
      login,
      password: TEST_PASSWORD,
      authenticity_token: formToken,
      redirect_to: page,
    }),
  });
  await signIn.body?.cancel();
  if (signIn.status !== 303) throw new Error(`sign-in of ${login}: ${signIn.status}`);
  const cookie = signIn.headers.getSetCookie()
    .find((c) => !c.startsWith(csrfCookie.split("=")[0]))!.split(";")[0];
  const get = (path: string) => instance.request(path, { headers: { cookie }, redirect: "manual" });
  // The session's own token, read where the server keeps it (a user who is
  // not staff sees no page that shows it, and must still be refused with it).
  const session = await findWebSession(
    instance.rookery.ctx.database.db,
    instance.rookery.ctx.core.activity,
    decodeURIComponent(cookie.slice(cookie.indexOf("=") + 1)),
  );
  const token = session!.csrfToken;
  const post = (path: string, fields: Record<string, string> = {}) =>
    instance.request(path, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ authenticity_token: token, ...fields }),
    });
  return { cookie, token, get, post };
}
