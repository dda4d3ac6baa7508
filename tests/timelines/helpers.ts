/** Shared set-up for the timeline tests: users with tokens, posting, following, reading feeds. */
import { createLocalAccount } from "../../actors/accounts.ts";
import { createAccessToken, createApplication } from "../../actors/tokens.ts";
import { json, type TestInstance } from "../harness.ts";

export interface TestUser {
  id: string;
  username: string;
  token: string;
  userId: string;
}

/** A confirmed local account with a token of the given scopes. */
export async function createUser(
  instance: TestInstance,
  username: string,
  scopes = ["read", "write", "follow"],
): Promise<TestUser> {
  const { db } = instance.rookery.ctx.database;
  const { account, user } = await createLocalAccount(db, instance.origin, {
    username,
    email: `${username}@example.com`,
    password: "correct horse battery",
    confirmed: true,
  });
  const { application } = await createApplication(db, {
    name: "tests",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes,
  });
  const { token } = await createAccessToken(db, {
    applicationId: application.id,
    userId: user.id,
    scopes,
  });
  return { id: account.id, username, token, userId: user.id };
}

/** Calls the API as `user` (null: anonymously); a body object is sent as JSON. */
export async function api<T = any>(
  instance: TestInstance,
  user: TestUser | null,
  method: string,
  path: string,
  body?: Record<string, unknown>,
): Promise<{ status: number; body: T; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (user) headers.Authorization = `Bearer ${user.token}`;
  if (body) headers["Content-Type"] = "application/json";
  const res = await instance.request(path, {
    method,
    headers,
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: await json<T>(res) };
}

/** Like {@link api}, failing unless the answer is 200. */
export async function ok<T = any>(
  instance: TestInstance,
  user: TestUser | null,
  method: string,
  path: string,
  body?: Record<string, unknown>,
): Promise<T> {
  const res = await api<T>(instance, user, method, path, body);
  if (res.status !== 200) {
    throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return res.body;
}

/** Posts a status and returns its JSON. */
export async function post(
  instance: TestInstance,
  user: TestUser,
  status: string,
  extra: Record<string, unknown> = {},
): Promise<any> {
  return await ok(instance, user, "POST", "/api/v1/statuses", { status, ...extra });
}

/** `a` follows `b` (options: reblogs, languages…). */
export async function follow(
  instance: TestInstance,
  a: TestUser,
  b: TestUser,
  options: Record<string, unknown> = {},
): Promise<void> {
  await ok(instance, a, "POST", `/api/v1/accounts/${b.id}/follow`, options);
}

/** The ids of a timeline page. */
export async function ids(instance: TestInstance, user: TestUser | null, path: string) {
  const body = await ok<any[]>(instance, user, "GET", path);
  return body.map((s) => s.id as string);
}

/** The `next` and `prev` URLs of a Link header. */
export function links(headers: Headers): { next?: string; prev?: string } {
  const out: { next?: string; prev?: string } = {};
  for (const part of (headers.get("link") ?? "").split(",")) {
    const m = /<([^>]+)>;\s*rel="(next|prev)"/.exec(part.trim());
    if (m) out[m[2] as "next" | "prev"] = m[1];
  }
  return out;
}

/** The path and query of a Link URL, to request it from the instance. */
export function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}
