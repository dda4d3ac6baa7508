/**
 * Helpers for the tests of the account pages over plain HTTP: a browser's
 * form cookie and token (read from a form page, as a browser would get
 * them), form posts with them, and the links of the mails written to files.
 */
import assert from "node:assert/strict";
import type { TestInstance } from "../harness.ts";

export interface FormBrowser {
  /** The form cookie (`name=value`). */
  cookie: string;
  /** The form token the page carried. */
  token: string;
  get(path: string): Promise<Response>;
  /** Posts `fields` as a form, with the token unless `fields` sets authenticity_token. */
  post(path: string, fields?: Record<string, string>): Promise<Response>;
}

/** Opens a form page like a fresh browser and keeps its cookie and token. */
export async function openForm(instance: TestInstance, path: string): Promise<FormBrowser> {
  const page = await instance.request(path);
  assert.equal(page.status, 200, path);
  const cookie = page.headers.getSetCookie().find((c) => c.startsWith("_rookery_csrf="))!
    .split(";")[0];
  const token = (await page.text()).match(/name="authenticity_token" value="([^"]+)"/)![1];
  const get = (p: string) => instance.request(p, { headers: { cookie }, redirect: "manual" });
  const post = (p: string, fields: Record<string, string> = {}) =>
    instance.request(p, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ authenticity_token: token, ...fields }),
    });
  return { cookie, token, get, post };
}

/** A mail's body with quoted-printable soft breaks and `=3D` undone. */
export function mailBody(mail: string): string {
  return mail.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
}

/** The password reset link of a mail. */
export function resetLink(mail: string): string {
  const match = /https?:\/\/\S+\/auth\/password\/edit\?reset_password_token=[A-Za-z0-9_%-]+/
    .exec(mailBody(mail));
  assert.ok(match, `no reset link in:\n${mail}`);
  return match[0];
}
