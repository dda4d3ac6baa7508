/**
 * The Admin::Account entity straight from the loader: a local account with
 * its user, its sign-in addresses and role; a remote account with nulls
 * where Mastodon has no user; moderation flags; batch order and unknown ids.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { accounts, users, webSessions } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { loadAdminAccounts } from "../../api/entities/admin_account.ts";
import { startInstance, test } from "../harness.ts";
import { createUser } from "../fixtures/users.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";

test("Admin::Account entity", async () => {
  const instance = await startInstance();
  const { db } = instance.rookery.ctx.database;
  const urls = instance.rookery.ctx.mediaUrls;
  try {
    const alice = await createUser(instance, "alice");
    await db.update(users).set({ role: "moderator", reason: "let me in", locale: "de" })
      .where(eq(users.id, alice.userId));
    const now = Date.now();
    for (const [ip, ago] of [["192.0.2.1", 5000], ["2001:db8::1", 1000], ["192.0.2.1", 9000]]) {
      await db.insert(webSessions).values({
        id: newId(),
        tokenHash: crypto.randomUUID(),
        userId: alice.userId,
        csrfToken: "x",
        ip: ip as string,
        lastSeenAt: new Date(now - (ago as number)),
      });
    }
    const remote = await insertRemoteAccount(instance, "zed", "remote.example", {
      silencedAt: new Date(),
      sensitizedAt: new Date(),
    });
    const list = await loadAdminAccounts(db, urls, [remote, "12345", alice.id]);
    assert.equal(list.length, 2, "unknown ids are skipped");
    const [r, a] = list;
    assert.equal(a.id, alice.id);
    assert.equal(a.username, "alice");
    assert.equal(a.domain, null);
    assert.equal(a.email, "alice@example.com");
    assert.equal(a.confirmed, true);
    assert.equal(a.approved, true);
    assert.equal(a.disabled, false);
    assert.equal(a.silenced, false);
    assert.equal(a.suspended, false);
    assert.equal(a.sensitized, false);
    assert.equal(a.locale, "de");
    assert.equal(a.invite_request, "let me in");
    assert.equal(a.role?.name, "Moderator");
    assert.equal(typeof a.role?.permissions, "string");
    assert.equal(a.ip, "2001:db8::1", "the most recent address first");
    assert.deepEqual(a.ips.map((i) => i.ip), ["2001:db8::1", "192.0.2.1"]);
    assert.equal(a.account.id, alice.id);
    assert.equal(a.account.acct, "alice");
    assert.ok(!Number.isNaN(Date.parse(a.created_at)));
    assert.equal("invited_by_account_id" in a, false);

    assert.equal(r.id, remote);
    assert.equal(r.domain, "remote.example");
    assert.equal(r.email, null);
    assert.equal(r.role, null);
    assert.equal(r.confirmed, null);
    assert.deepEqual(r.ips, []);
    assert.equal(r.ip, null);
    assert.equal(r.silenced, true);
    assert.equal(r.sensitized, true);
    assert.equal(r.account.acct, "zed@remote.example");

    await db.update(accounts).set({ suspendedAt: new Date() }).where(eq(accounts.id, remote));
    const [again] = await loadAdminAccounts(db, urls, [remote]);
    assert.equal(again.suspended, true);
    assert.equal(again.account.suspended, true);
  } finally {
    await instance.close({ destroy: true });
  }
});
