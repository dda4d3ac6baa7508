/**
 * Set-up for the notification tests: users with tokens, statuses written
 * straight into the database (the commands of other areas may not exist
 * yet), and notify() called the way those commands call it.
 */
import { eq } from "drizzle-orm";
import { type NewNotification, notify } from "../../actors/notifications/notify.ts";
import { newId } from "../../db/ids.ts";
import { accounts, mentions, statuses } from "../../db/schema/mod.ts";
import type { TestInstance } from "../harness.ts";
import { type ApiResult, type Caller, callJson, ok as okApi, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";

// tests/notification_policy takes the type from here along with `fixtures`.
export type { TestUser } from "../fixtures/users.ts";

/** Tools bound to one instance. */
export function fixtures(instance: TestInstance) {
  const { db } = instance.rookery.ctx.database;

  /** A confirmed local account with a token (default scopes read write follow). */
  function user(username: string, scopes?: string[]): Promise<TestUser> {
    return createUser(instance, username, { scopes });
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

  /** Calls the API as `who` (a user, a bare token or null); a body object is sent as JSON. */
  function call<T = any>(
    who: Caller,
    method: string,
    path: string,
    body?: Record<string, unknown>,
  ): Promise<ApiResult<T>> {
    return callJson<T>(instance, who, method, path, body);
  }

  /** Like {@link call}, failing unless the answer is 200; returns the body. */
  function ok<T = any>(
    who: Caller,
    method: string,
    path: string,
    body?: Record<string, unknown>,
  ): Promise<T> {
    return okApi<T>(instance, who, method, path, body);
  }

  /** Posts a status as `who` (text and extra parameters) through the API; returns its JSON. */
  function post(who: Caller, status: string, extra: Record<string, unknown> = {}): Promise<any> {
    return postStatus(instance, who, status, extra);
  }

  /** Marks an account as locked. */
  async function lock(accountId: string): Promise<void> {
    await db.update(accounts).set({ locked: true }).where(eq(accounts.id, accountId));
  }

  return { db, user, remote, status, notifyNow, call, ok, post, lock };
}
