/**
 * The instance and people the admin accounts tests share: staff of every
 * role (tokens with the admin scopes), plain users, a pending sign-up and a
 * remote account, with small helpers over the API and the audit log.
 */
import { and, eq } from "drizzle-orm";
import { accounts, adminActionLogs, users } from "../../db/schema/mod.ts";
import { type InstanceOptions, startInstance, type TestInstance } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";

export const STAFF_SCOPES = ["read", "write", "follow", "admin:read", "admin:write"];
export const NOT_ALLOWED = { error: "This action is not allowed" };

/** A user of `role` whose token has the admin scopes. */
export async function staff(instance: TestInstance, name: string, role: string): Promise<TestUser> {
  const user = await createUser(instance, name, { scopes: STAFF_SCOPES });
  await instance.rookery.ctx.database.db.update(users).set({ role })
    .where(eq(users.id, user.userId));
  return user;
}

/** Starts an instance with the cast; close it with `instance.close({ destroy: true })`. */
export async function startAdminFixture(options: InstanceOptions = {}) {
  const instance = await startInstance(options);
  const db = instance.rookery.ctx.database.db;
  const get = (who: TestUser | null, path: string) => callJson(instance, who, "GET", path);
  const post = (who: TestUser | null, path: string, body?: Record<string, unknown>) =>
    callJson(instance, who, "POST", path, body);
  const accountRow = async (id: string) =>
    (await db.select().from(accounts).where(eq(accounts.id, id)))[0];
  const auditOf = (id: string, action: string) =>
    db.select().from(adminActionLogs).where(
      and(eq(adminActionLogs.targetId, id), eq(adminActionLogs.action, action)),
    );
  const owner = await staff(instance, "olga", "owner");
  const admin = await staff(instance, "adam", "admin");
  const mod = await staff(instance, "mona", "moderator");
  const mod2 = await staff(instance, "milo", "moderator");
  const modNoScope = await createUser(instance, "mads");
  await db.update(users).set({ role: "moderator" }).where(eq(users.id, modNoScope.userId));
  const plain = await staff(instance, "pat", "user");
  const alice = await createUser(instance, "alice", {
    account: { displayName: "Alice Liddell" },
  });
  const bob = await createUser(instance, "bob");
  const carol = await createUser(instance, "carol", { approved: false });
  const dave = await createUser(instance, "dave");
  const zed = await insertRemoteAccount(instance, "zed", "remote.example", {
    inboxUrl: "https://remote.example/users/zed/inbox",
  });
  return {
    instance,
    db,
    get,
    post,
    accountRow,
    auditOf,
    owner,
    admin,
    mod,
    mod2,
    modNoScope,
    plain,
    alice,
    bob,
    carol,
    dave,
    zed,
  };
}
