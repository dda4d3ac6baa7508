/**
 * Removing a domain from the allow-list in limited federation mode
 * (FEDERATION_MODE=allowlist) purges that domain's accounts and their
 * content, as Mastodon's UnallowDomainService: statuses gone, follows both
 * ways removed with the local counters corrected, the accounts hidden;
 * other domains are untouched, in one transaction with the audit row.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { accounts, adminActionLogs, follows, statuses } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { test } from "../harness.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { callJson } from "../fixtures/api.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";
import { staff, startAdminFixture } from "./admin_fixture.ts";

test("DELETE /api/v1/admin/domain_allows/:id in allowlist mode purges the domain", async () => {
  const f = await startAdminFixture({ env: { FEDERATION_MODE: "allowlist" } });
  const { instance, db, get, post } = f;
  try {
    const admin = await staff(instance, "ada", "admin");
    const del = (who: TestUser, id: string) =>
      callJson(instance, who, "DELETE", `/api/v1/admin/domain_allows/${id}`);
    const alice = await createUser(instance, "alicia");
    const allow = async (domain: string) => {
      const res = await post(admin, "/api/v1/admin/domain_allows", { domain });
      assert.equal(res.status, 200);
      return res.body.id as string;
    };
    const goneId = await allow("gone.example");
    await allow("kept.example");
    const gone = await insertRemoteAccount(instance, "gus", "Gone.Example");
    const kept = await insertRemoteAccount(instance, "kim", "kept.example");
    const remoteStatus = async (accountId: string, domain: string) => {
      const id = newId();
      await db.insert(statuses).values({
        id,
        uri: `https://${domain}/statuses/${id}`,
        accountId,
        visibility: "public",
        content: `<p>from ${domain}</p>`,
      });
      await db.update(accounts).set({ statusesCount: 1 }).where(eq(accounts.id, accountId));
      return id;
    };
    const goneStatus = await remoteStatus(gone, "gone.example");
    const keptStatus = await remoteStatus(kept, "kept.example");
    // alicia follows both remote accounts; the doomed one follows her.
    await db.insert(follows).values([
      { id: newId(), accountId: alice.id, targetAccountId: gone },
      { id: newId(), accountId: alice.id, targetAccountId: kept },
      { id: newId(), accountId: gone, targetAccountId: alice.id },
    ]);
    await db.update(accounts).set({ followingCount: 2, followersCount: 1 })
      .where(eq(accounts.id, alice.id));
    await db.update(accounts).set({ followersCount: 1, followingCount: 1 })
      .where(eq(accounts.id, gone));
    assert.equal((await get(alice, `/api/v1/statuses/${goneStatus}`)).status, 200);

    // Someone else's id, or garbage: 404, nothing purged.
    assert.equal((await del(admin, "12345")).status, 404);
    assert.equal((await del(admin, "not-an-id")).status, 404);
    assert.equal((await get(alice, `/api/v1/statuses/${goneStatus}`)).status, 200);
    // A moderator may not (manage_federation is an admin's).
    assert.equal((await del(f.mod, goneId)).status, 403);

    const res = await del(admin, goneId);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {});

    const [goneRow] = await db.select().from(accounts).where(eq(accounts.id, gone));
    assert.ok(goneRow.suspendedAt, "suspended");
    assert.ok(goneRow.deletedAt, "purged (a tombstone)");
    assert.equal(goneRow.statusesCount, 0);
    const [goneStatusRow] = await db.select().from(statuses).where(eq(statuses.id, goneStatus));
    assert.ok(goneStatusRow.deletedAt, "its statuses are deleted");
    assert.equal((await get(alice, `/api/v1/statuses/${goneStatus}`)).status, 404);
    assert.equal((await get(alice, `/api/v1/accounts/${gone}`)).status, 404);
    const left = await db.select().from(follows).where(eq(follows.accountId, alice.id));
    assert.deepEqual(left.map((r) => r.targetAccountId), [kept]);
    assert.equal((await db.select().from(follows).where(eq(follows.accountId, gone))).length, 0);
    const [aliceRow] = await db.select().from(accounts).where(eq(accounts.id, alice.id));
    assert.equal(aliceRow.followingCount, 1);
    assert.equal(aliceRow.followersCount, 0);

    // The other domain is untouched.
    const [keptRow] = await db.select().from(accounts).where(eq(accounts.id, kept));
    assert.equal(keptRow.suspendedAt, null);
    assert.equal(keptRow.deletedAt, null);
    assert.equal((await get(alice, `/api/v1/statuses/${keptStatus}`)).status, 200);

    const audit = await db.select().from(adminActionLogs).where(and(
      eq(adminActionLogs.targetId, goneId),
      eq(adminActionLogs.action, "destroy"),
    ));
    assert.equal(audit.length, 1);
    assert.equal(audit[0].targetType, "DomainAllow");
  } finally {
    await instance.close({ destroy: true });
  }
});
