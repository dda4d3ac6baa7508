/** Shared set-up for the own-account tests: apps, app tokens, sign-ups and users. */
import assert from "node:assert/strict";
import { createLocalAccount } from "../../actors/accounts/accounts.ts";
import { createAccessToken } from "../../actors/oauth/tokens.ts";
import { json, type TestInstance } from "../harness.ts";

export const PASSWORD = "correct horse battery staple";

/** Registers an app and returns a client-credentials token for it. */
export async function appToken(
  instance: TestInstance,
  scopes = "read write follow push",
  tokenScope = "write:accounts",
): Promise<{ token: string; clientId: string; clientSecret: string }> {
  const app = await json(
    await instance.request("/api/v1/apps", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Test client",
        redirect_uris: "urn:ietf:wg:oauth:2.0:oob",
        scopes,
      }),
    }),
  );
  assert.ok(app.client_id, JSON.stringify(app));
  const res = await instance.request("/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: app.client_id,
      client_secret: app.client_secret,
      scope: tokenScope,
    }).toString(),
  });
  const body = await json(res);
  assert.equal(res.status, 200, JSON.stringify(body));
  return { token: body.access_token, clientId: app.client_id, clientSecret: app.client_secret };
}

/** A complete, valid sign-up form. */
export function signUpForm(username: string, extra: Record<string, string> = {}) {
  return {
    username,
    email: `${username}@example.com`,
    password: PASSWORD,
    agreement: "true",
    locale: "en",
    ...extra,
  };
}

/** POST /api/v1/accounts with a form body. */
export function signUp(
  instance: TestInstance,
  token: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return instance.request("/api/v1/accounts", {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    },
    body: new URLSearchParams(form).toString(),
  });
}

/** A confirmed local user with a user token (no application) holding `scopes`. */
export async function localUser(
  instance: TestInstance,
  username: string,
  scopes = ["read", "write", "follow", "profile"],
) {
  const db = instance.rookery.ctx.database.db;
  const { account, user } = await createLocalAccount(db, instance.origin, {
    username,
    email: `${username}@example.com`,
    password: PASSWORD,
    confirmed: true,
  });
  const { token } = await createAccessToken(db, { applicationId: null, userId: user.id, scopes });
  return { account, user, token };
}

/** Sends a request with a bearer token. */
export function authed(
  instance: TestInstance,
  token: string,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${token}`);
  return instance.request(path, { ...init, headers });
}

/** PATCH update_credentials with a urlencoded body (or FormData for files). */
export function updateCredentials(
  instance: TestInstance,
  token: string,
  body: Record<string, string> | FormData,
): Promise<Response> {
  const init: RequestInit = body instanceof FormData ? { method: "PATCH", body } : {
    method: "PATCH",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body).toString(),
  };
  return authed(instance, token, "/api/v1/accounts/update_credentials", init);
}

/** The `.eml` files written so far under the instance's mail folder, oldest first. */
export async function mailFiles(instance: TestInstance): Promise<string[]> {
  const dir = `${instance.dataDir}/mail`;
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && entry.name.endsWith(".eml")) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return await Promise.all(names.sort().map((n) => Deno.readTextFile(`${dir}/${n}`)));
}

/** The confirmation link of a mail (quoted-printable soft breaks undone). */
export function confirmationLink(mail: string): string {
  const body = mail.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
  const match = /https?:\/\/\S+\/auth\/confirmation\?confirmation_token=[A-Za-z0-9_%-]+/.exec(body);
  assert.ok(match, `no confirmation link in:\n${mail}`);
  return match[0];
}
