/**
 * Set-up for the notification tests: users with tokens, statuses written
 * straight into the database (the commands of other areas may not exist
 * yet), and notify() called the way those commands call it.
 */
import { eq } from "drizzle-orm";
import { createLocalAccount } from "../../actors/accounts.ts";
import { createAccessToken, createApplication } from "../../actors/tokens.ts";
import { type NewNotification, notify } from "../../actors/notifications/notify.ts";
import { newId } from "../../db/ids.ts";
import { accounts, mentions, statuses } from "../../db/schema.ts";
import { json, type TestInstance } from "../harness.ts";

export interface TestUser {
  id: string;
  userId: string;
  username: string;
  token: string;
}

/** Tools bound to one instance. */
export function fixtures(instance: TestInstance) {
  const { db } = instance.rookery.ctx.database;

  /** A confirmed local account with a token (default scopes read write follow). */
  async function user(username: string, scopes = ["read", "write", "follow"]): Promise<TestUser> {
    const { account, user } = await createLocalAccount(db, instance.origin, {
      username,
      email: `${username}@example.com`,
      password: "correct horse battery",
      confirmed: true,
    });
    const { application } = await createApplication(db, {
      name: "notification tests",
      redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
      scopes,
    });
    const { token } = await createAccessToken(db, {
      applicationId: application.id,
      userId: user.id,
      scopes,
    });
    return { id: account.id, userId: user.id, username, token };
  }

  /** A remote account row (as federation would store it). */
  async function remote(username: string, domain: string): Promise<string> {
    const id = newId();
    await db.insert(accounts).values({
      id,
      username,
      domain,
      uri: `https://${domain}/users/${username}`,
      inboxUrl: `https://${domain}/users/${username}/inbox`,
    });
    return id;
  }

  /** A status row written directly. */
  async function status(
    accountId: string,
    changes: Partial<typeof statuses.$inferInsert> = {},
    mentioned: string[] = [],
  ): Promise<typeof statuses.$inferSelect> {
    const id = newId();
    const [row] = await db.insert(statuses).values({
      id,
      uri: `${instance.origin}/statuses/${id}`,
      accountId,
      local: true,
      visibility: "public",
      content: `<p>status ${id}</p>`,
      ...changes,
    }).returning();
    if (mentioned.length) {
      await db.insert(mentions).values(
        mentioned.map((accountId) => ({ id: newId(), statusId: id, accountId })),
      );
    }
    return row;
  }

  /** Calls notify() in a transaction, as a command does. */
  async function notifyNow(notification: NewNotification): Promise<string | null> {
    return await db.transaction((tx) => notify(tx, notification));
  }

  /** Calls the API as `who`; a body object is sent as JSON. */
  async function call<T = any>(
    who: TestUser | string | null,
    method: string,
    path: string,
    body?: Record<string, unknown>,
  ): Promise<{ status: number; body: T; headers: Headers }> {
    const headers: Record<string, string> = {};
    const token = typeof who === "string" ? who : who?.token;
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body) headers["Content-Type"] = "application/json";
    const res = await instance.request(path, {
      method,
      headers,
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, headers: res.headers, body: await json<T>(res) };
  }

  /** Marks an account as locked. */
  async function lock(accountId: string): Promise<void> {
    await db.update(accounts).set({ locked: true }).where(eq(accounts.id, accountId));
  }

  return { db, user, remote, status, notifyNow, call, lock };
}

/** The URLs of a Link header by rel. */
export function links(header: string | null): Record<string, URL> {
  const out: Record<string, URL> = {};
  for (const part of (header ?? "").split(",")) {
    const m = part.match(/<([^>]+)>;\s*rel="([^"]+)"/);
    if (m) out[m[2]] = new URL(m[1]);
  }
  return out;
}
