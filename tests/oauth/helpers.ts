/**
 * Helpers for the OAuth tests: a tiny browser (cookie jar, manual redirects,
 * form fields read from the HTML), users in each sign-in state, app
 * registration and PKCE pairs.
 */
import assert from "node:assert/strict";
import { s256 } from "../../actors/oauth/oauth.ts";
import { randomSecret } from "../../actors/oauth/tokens.ts";
import { json, type TestInstance } from "../harness.ts";
import { createAccount } from "../fixtures/users.ts";

export const PASSWORD = "correct horse battery staple";

/** A browser: keeps cookies, never follows redirects by itself. */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly instance: TestInstance) {}

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) {
      headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    const res = await this.instance.request(path, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const eqAt = pair.indexOf("=");
      const name = pair.slice(0, eqAt).trim();
      const value = pair.slice(eqAt + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  get(path: string): Promise<Response> {
    return this.request(path);
  }

  /** Posts a form (urlencoded), as a browser submits one. */
  post(path: string, fields: Record<string, string>): Promise<Response> {
    return this.request(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

function unescapeHtml(s: string): string {
  return s.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/** The hidden fields of the first form posting to `action` in a page. */
export function formFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  assert.ok(start >= 0, `no form posting to ${action} in:\n${html}`);
  const form = html.slice(start, html.indexOf("</form>", start));
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescapeHtml(m[1])] = unescapeHtml(m[2]);
  }
  return fields;
}

/** The login states a user can be in. */
export type UserState = "ok" | "unconfirmed" | "pending" | "disabled";

/** Creates a local user (password {@link PASSWORD}, no token) in a given state; returns its ids. */
export async function createUser(
  instance: TestInstance,
  username: string,
  state: UserState = "ok",
) {
  const { id, userId } = await createAccount(instance, username, {
    password: PASSWORD,
    confirmed: state !== "unconfirmed",
    approved: state !== "pending",
    disabled: state === "disabled",
  });
  return { accountId: id, userId, username };
}

/** A registered app as POST /api/v1/apps returns it. */
export interface RegisteredApp {
  id: string;
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  scopes: string[];
}

/** Registers an app over HTTP. */
export async function registerApp(
  instance: TestInstance,
  body: Record<string, unknown> = {},
): Promise<RegisteredApp> {
  const res = await instance.request("/api/v1/apps", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test client",
      redirect_uris: "https://client.example/callback",
      scopes: "read write follow profile",
      ...body,
    }),
  });
  assert.equal(res.status, 200);
  return await json(res);
}

/** A PKCE verifier and its S256 challenge. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = randomSecret() + randomSecret().slice(0, 10);
  return { verifier, challenge: await s256(verifier) };
}

/** `/oauth/authorize?…` */
export function authorizePath(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
  return `/oauth/authorize?${q}`;
}

/** Exchanges something at the token endpoint (form body). */
export function tokenRequest(
  instance: TestInstance,
  fields: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Promise<Response> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.set(k, v);
  return instance.request("/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: body.toString(),
  });
}

/**
 * Runs the browser part of the flow for a signed-in or fresh browser: sign in
 * if asked, approve, and return the redirect's URL.
 */
export async function authorizeInBrowser(
  browser: Browser,
  params: Record<string, string | undefined>,
  login?: string,
): Promise<URL> {
  let page = await browser.get(authorizePath(params));
  assert.equal(page.status, 200);
  let html = await page.text();
  if (html.includes('action="/auth/sign_in"')) {
    assert.ok(login, "sign-in page shown but no login given");
    const res = await browser.post("/auth/sign_in", {
      ...formFields(html, "/auth/sign_in"),
      login,
      password: PASSWORD,
    });
    assert.equal(res.status, 303, await res.clone().text());
    page = await browser.get(res.headers.get("location")!);
    assert.equal(page.status, 200);
    html = await page.text();
  }
  const res = await browser.post("/oauth/authorize", {
    ...formFields(html, "/oauth/authorize"),
    decision: "approve",
  });
  assert.equal(res.status, 302, await res.clone().text());
  return new URL(res.headers.get("location")!, browser.instance.origin);
}

/** Authorization header for a bearer token. */
export function bearer(token: string): RequestInit {
  return { headers: { authorization: `Bearer ${token}` } };
}
