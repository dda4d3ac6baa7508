/**
 * Suspension across two instances over https, through real signed
 * deliveries. A suspension on A of A's account reaches B as Mastodon's
 * servers see it (an Update of the actor with `suspended: true`): B marks
 * the account suspended with a remote origin and hides its statuses;
 * unsuspending on A lifts it on B the same way. A suspension on B of A's
 * account hides it on B and B stops taking its activities, and a later
 * Update from A does not lift what B's moderators decided.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { accounts, users } from "../../db/schema/mod.ts";
import type { TestInstance } from "../harness.ts";
import { test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import {
  arrived,
  closeAll,
  followRemote,
  startPair,
  storedStatus,
} from "../fixtures/federation.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const STAFF_SCOPES = ["read", "write", "follow", "admin:read", "admin:write"];

async function staff(instance: TestInstance, name: string, role: string): Promise<TestUser> {
  const user = await createUser(instance, name, { scopes: STAFF_SCOPES });
  await instance.rookery.ctx.database.db.update(users).set({ role })
    .where(eq(users.id, user.userId));
  return user;
}

async function accountRow(instance: TestInstance, id: string) {
  const [row] = await instance.rookery.ctx.database.db.select().from(accounts)
    .where(eq(accounts.id, id));
  return row;
}

test("suspension federates as Mastodon's does", async (t) => {
  const { a, b } = await startPair();
  try {
    const frank = await createUser(a, "frank", { account: { displayName: "Frank" } });
    const gil = await createUser(a, "gil");
    const adminA = await staff(a, "adah", "admin");
    const bea = await createUser(b, "bea");
    const modB = await staff(b, "mona", "moderator");
    const frankOnB = await followRemote(b, bea, a, frank);
    await followRemote(b, bea, a, gil);
    const first = await postStatus(a, frank, "hello from A");
    const firstOnB = await arrived(b, first.uri);
    assert.equal((await callJson(b, bea, "GET", `/api/v1/statuses/${firstOnB.id}`)).status, 200);

    await t.step("suspended on A: B hears an Update with suspended: true", async () => {
      const res = await callJson(a, adminA, "POST", `/api/v1/admin/accounts/${frank.id}/action`, {
        type: "suspend",
        send_email_notification: false,
      });
      assert.equal(res.status, 200);
      const row = await eventually("the suspension on B", async () => {
        const row = await accountRow(b, frankOnB);
        return row.suspendedAt ? row : null;
      });
      assert.equal(row.suspensionOrigin, "remote");
      assert.equal((await callJson(b, bea, "GET", `/api/v1/statuses/${firstOnB.id}`)).status, 404);
      const profile = await callJson(b, bea, "GET", `/api/v1/accounts/${frankOnB}`);
      assert.equal(profile.body.suspended, true);
      // B's moderators cannot lift what A decided.
      const lift = await callJson(b, modB, "POST", `/api/v1/admin/accounts/${frankOnB}/unsuspend`);
      assert.equal(lift.status, 403);
    });

    await t.step("unsuspended on A: lifted on B", async () => {
      const res = await callJson(a, adminA, "POST", `/api/v1/admin/accounts/${frank.id}/unsuspend`);
      assert.equal(res.status, 200);
      await eventually("the suspension lifted on B", async () => {
        const row = await accountRow(b, frankOnB);
        return row.suspendedAt == null;
      });
      assert.equal((await callJson(b, bea, "GET", `/api/v1/statuses/${firstOnB.id}`)).status, 200);
      // His token was kept, refused while suspended: it works again.
      assert.equal(
        (await callJson(a, frank, "GET", "/api/v1/accounts/verify_credentials")).status,
        200,
      );
    });

    await t.step("suspended on B: hidden there, its activities refused", async () => {
      const res = await callJson(b, modB, "POST", `/api/v1/admin/accounts/${frankOnB}/action`, {
        type: "suspend",
      });
      assert.equal(res.status, 200);
      assert.equal((await accountRow(b, frankOnB)).suspensionOrigin, "local");
      assert.equal((await callJson(b, bea, "GET", `/api/v1/statuses/${firstOnB.id}`)).status, 404);
      const refused = await postStatus(a, frank, "you will not see this");
      // gil's post goes out after frank's: once it is on B, frank's was handled.
      const marker = await postStatus(a, gil, "but this you will");
      await arrived(b, marker.uri);
      await eventually("frank's delivery handled", async () => {
        const queue = await a.rookery.ctx.database.db.execute(
          "SELECT count(*)::int AS n FROM federation_queue",
        );
        const rows = Array.isArray(queue) ? queue : (queue as { rows: unknown[] }).rows;
        return (rows[0] as { n: number }).n === 0;
      });
      assert.equal(await storedStatus(b, refused.uri), undefined);
      // A's profile Update does not lift B's own suspension.
      const update = await callJson(a, frank, "PATCH", "/api/v1/accounts/update_credentials", {
        display_name: "Frank again",
      });
      assert.equal(update.status, 200);
      const marker2 = await postStatus(a, gil, "second marker");
      await arrived(b, marker2.uri);
      const row = await accountRow(b, frankOnB);
      assert.ok(row.suspendedAt);
      assert.equal(row.suspensionOrigin, "local");
    });
  } finally {
    await closeAll(a, b);
  }
});
