/** Shared set-up for the status tests: users with tokens, API calls, media rows. */
import { eq } from "drizzle-orm";
import { createLocalAccount } from "../../actors/accounts.ts";
import { createAccessToken, createApplication } from "../../actors/tokens.ts";
import { newId } from "../../db/ids.ts";
import { accounts, follows, mediaAttachments, users } from "../../db/schema.ts";
import { json, type TestInstance } from "../harness.ts";

export interface TestUser {
  id: string;
  username: string;
  token: string;
}

/** A confirmed local account with a read/write/follow token of an app named "Test app". */
export async function createUser(
  instance: TestInstance,
  username: string,
  options: { scopes?: string[]; settings?: Record<string, unknown>; locked?: boolean } = {},
): Promise<TestUser> {
  const { db } = instance.rookery.ctx.database;
  const scopes = options.scopes ?? ["read", "write", "follow"];
  const { account, user } = await createLocalAccount(db, instance.origin, {
    username,
    email: `${username}@example.com`,
    password: "correct horse battery",
    confirmed: true,
  });
  if (options.settings) {
    await db.update(users).set({ settings: options.settings }).where(eq(users.id, user.id));
  }
  if (options.locked) {
    await db.update(accounts).set({ locked: true }).where(eq(accounts.id, account.id));
  }
  const { application } = await createApplication(db, {
    name: "Test app",
    website: "https://app.example",
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

/** Calls the API as `user` (null: anonymously); a body object is sent as JSON. */
export async function call(
  instance: TestInstance,
  user: TestUser | null,
  method: string,
  path: string,
  body?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const h: Record<string, string> = { ...headers };
  if (user) h.Authorization = `Bearer ${user.token}`;
  if (body) h["Content-Type"] = "application/json";
  const res = await instance.request(path, {
    method,
    headers: h,
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await json(res), headers: res.headers };
}

/** Posts a status and returns its JSON (asserting 200). */
export async function post(
  instance: TestInstance,
  user: TestUser,
  body: Record<string, unknown>,
): Promise<any> {
  const res = await call(instance, user, "POST", "/api/v1/statuses", body);
  if (res.status !== 200) {
    throw new Error(`POST /api/v1/statuses: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return res.body;
}

/** An uploaded, unattached image of `user` (a row as the media upload leaves it). */
export async function mediaRow(instance: TestInstance, user: TestUser): Promise<string> {
  const id = newId();
  await instance.rookery.ctx.database.db.insert(mediaAttachments).values({
    id,
    accountId: user.id,
    type: "image",
    filePath: `media_attachments/files/${id}/original.png`,
    previewPath: `media_attachments/files/${id}/small.png`,
    contentType: "image/png",
    meta: { original: { width: 2, height: 1, size: "2x1", aspect: 2 } },
    description: "a picture",
    blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
  });
  return id;
}

/** Makes `follower` an accepted follower of `target` (directly in the database). */
export async function makeFollower(instance: TestInstance, follower: TestUser, target: TestUser) {
  await instance.rookery.ctx.database.db.insert(follows).values({
    id: newId(),
    accountId: follower.id,
    targetAccountId: target.id,
  });
}
