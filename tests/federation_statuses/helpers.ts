/**
 * Shared set-up for the status federation tests: two instances over https,
 * users with tokens, follows through the API, and finding the copy of a
 * status on the other side. Deliveries are awaited by bounded polling.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { statuses } from "../../db/schema.ts";
import { resolveRemoteAccount } from "../../federation/remote_accounts.ts";
import { startInstance, type TestInstance } from "../harness.ts";
import { callJson, eventually, relationship, type TestUser } from "../relationships/helpers.ts";

export { call, callJson, createUser, eventually, type TestUser } from "../relationships/helpers.ts";

/** Two instances over https; close both with {@link closeAll}. */
export async function startPair(
  onRequestToB?: (request: Request) => void,
): Promise<{ a: TestInstance; b: TestInstance }> {
  const a = await startInstance({ tls: true });
  const b = await startInstance({ tls: true, onRequest: onRequestToB });
  return { a, b };
}

export async function closeAll(...instances: TestInstance[]): Promise<void> {
  for (const i of instances) await i.close({ destroy: true });
}

/** The id on `on` of `user` who lives on `home`, resolved through WebFinger. */
export async function remoteId(on: TestInstance, home: TestInstance, user: TestUser) {
  const row = await resolveRemoteAccount(on.rookery.ctx, `${user.username}@${home.domain}`);
  assert.ok(row, `resolved ${user.username}@${home.domain}`);
  return row.id;
}

/** `follower` (on `from`) follows `followed` (on `to`) through the API, until accepted. */
export async function follow(
  from: TestInstance,
  follower: TestUser,
  to: TestInstance,
  followed: TestUser,
): Promise<string> {
  const id = await remoteId(from, to, followed);
  const res = await callJson(from, follower, "POST", `/api/v1/accounts/${id}/follow`);
  assert.equal(res.status, 200);
  await eventually(
    "follow accepted",
    async () => (await relationship(from, follower, id)).following,
  );
  return id;
}

/** Posts a status through the API and returns its JSON. */
export async function post(
  on: TestInstance,
  user: TestUser,
  body: Record<string, unknown>,
): Promise<any> {
  const res = await callJson(on, user, "POST", "/api/v1/statuses", body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** The stored row of the status with this IRI on `on`, once it arrived. */
export async function arrived(on: TestInstance, uri: string, what = uri) {
  return await eventually(`${what} on ${on.domain}`, async () => {
    const [row] = await on.rookery.ctx.database.db.select().from(statuses)
      .where(eq(statuses.uri, uri));
    return row;
  });
}

/** The stored row of the status with this IRI, or undefined. */
export async function storedStatus(on: TestInstance, uri: string) {
  const [row] = await on.rookery.ctx.database.db.select().from(statuses)
    .where(eq(statuses.uri, uri));
  return row;
}
