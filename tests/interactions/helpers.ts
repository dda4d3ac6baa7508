/**
 * Shared set-up for the interaction tests: statuses posted through the
 * command, follows, actions and what they leave behind (users and API calls
 * come from tests/fixtures).
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { createStatus, type LocalStatusInput } from "../../actors/statuses/create.ts";
import { follow } from "../../actors/relationships/follows.ts";
import { notifications, statuses } from "../../db/schema/mod.ts";
import type { TestInstance } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import type { TestUser } from "../fixtures/users.ts";

type PostOptions = Omit<LocalStatusInput, "local" | "accountId" | "text">;

/** Posts a status as `user` through the statuses command; returns its id. */
export async function post(
  instance: TestInstance,
  user: TestUser,
  text: string,
  options: PostOptions = {},
): Promise<string> {
  const row = await createStatus(instance.rookery.ctx, {
    local: true,
    accountId: user.id,
    text,
    visibility: "public",
    ...options,
  });
  return row.id;
}

/** `follower` follows `target` (both local and unlocked: at once). */
export async function follows(instance: TestInstance, follower: TestUser, target: TestUser) {
  await follow(instance.rookery.ctx, follower.id, target.id);
}

/** POSTs an action on a status and expects 200; returns the Status JSON. */
export async function act(
  instance: TestInstance,
  user: TestUser,
  id: string,
  action: string,
  body?: Record<string, unknown>,
): Promise<any> {
  const res = await callJson(instance, user, "POST", `/api/v1/statuses/${id}/${action}`, body);
  assert.equal(res.status, 200, `${action} ${id}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The counters stored on a status row. */
export async function counters(instance: TestInstance, id: string) {
  const [row] = await instance.rookery.ctx.database.db.select().from(statuses)
    .where(eq(statuses.id, id));
  return {
    reblogs: row.reblogsCount,
    favourites: row.favouritesCount,
    quotes: row.quotesCount,
  };
}

/** Notifications of a type received by `user` from `from`. */
export async function notificationsOf(
  instance: TestInstance,
  user: TestUser,
  type: string,
  from?: TestUser,
) {
  return await instance.rookery.ctx.database.db.select().from(notifications).where(and(
    eq(notifications.accountId, user.id),
    eq(notifications.type, type),
    from ? eq(notifications.fromAccountId, from.id) : undefined,
  ));
}
