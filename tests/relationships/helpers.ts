/** Shared set-up for the relationship tests: users with tokens, API calls, polling. */
import { eq } from "drizzle-orm";
import { createLocalAccount } from "../../actors/accounts.ts";
import { createAccessToken, createApplication } from "../../actors/tokens.ts";
import { accounts } from "../../db/schema.ts";
import { json, type TestInstance } from "../harness.ts";

export interface TestUser {
  id: string;
  username: string;
  token: string;
}

/** A confirmed local account with a read/write/follow token. */
export async function createUser(
  instance: TestInstance,
  username: string,
  changes: Partial<typeof accounts.$inferInsert> = {},
  scopes = ["read", "write", "follow"],
): Promise<TestUser> {
  const { db } = instance.rookery.ctx.database;
  const { account, user } = await createLocalAccount(db, instance.origin, {
    username,
    email: `${username}@example.com`,
    password: "correct horse battery",
    confirmed: true,
  });
  if (Object.keys(changes).length) {
    await db.update(accounts).set(changes).where(eq(accounts.id, account.id));
  }
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
  return { id: account.id, username, token };
}

/** Calls the API as `user`; a body object is sent as JSON. */
export async function call(
  instance: TestInstance,
  user: TestUser | null,
  method: string,
  path: string,
  body?: Record<string, unknown>,
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (user) headers.Authorization = `Bearer ${user.token}`;
  if (body) headers["Content-Type"] = "application/json";
  return await instance.request(path, {
    method,
    headers,
    body: body ? JSON.stringify(body) : undefined,
  });
}

/** Calls the API and returns the status with the parsed JSON body. */
export async function callJson<T = any>(
  instance: TestInstance,
  user: TestUser | null,
  method: string,
  path: string,
  body?: Record<string, unknown>,
): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await call(instance, user, method, path, body);
  return { status: res.status, headers: res.headers, body: await json<T>(res) };
}

/** The relationship of `user` with account `id`. */
export async function relationship(instance: TestInstance, user: TestUser, id: string) {
  const { status, body } = await callJson(
    instance,
    user,
    "GET",
    `/api/v1/accounts/relationships?id[]=${id}`,
  );
  if (status !== 200) throw new Error(`relationships answered ${status}: ${JSON.stringify(body)}`);
  return body[0];
}

/** A stored account row by id. */
export async function accountRow(instance: TestInstance, id: string) {
  const { db } = instance.rookery.ctx.database;
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
  return row;
}

/**
 * Polls `check` until it returns a truthy value (deliveries go through the
 * queue), failing after `timeoutMs`. No fixed sleeps: it retries at once
 * after each short wait for the queue to make progress.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Timed out waiting for ${what}${last ? `: ${last}` : ""}`);
}
