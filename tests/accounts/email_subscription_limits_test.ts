/**
 * E-mail subscriptions' limits beyond the per-address rate limit: one
 * address gets at most 3 confirmation mails a day across accounts (still
 * answered 200), an account takes at most 100 new unconfirmed subscriptions
 * an hour (then 429), and unconfirmed ones are purged once their link has
 * expired (48 hours), confirmed ones kept.
 */
import assert from "node:assert/strict";
import { eq, inArray } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { createUser } from "../fixtures/users.ts";
import { emailSubscriptions, roleSettings, users } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { setServerSetting } from "../../actors/settings/server_settings.ts";
import { purgePendingSubscriptions } from "../../actors/email_subscriptions/purge.ts";
import { mailFiles } from "./helpers.ts";

test("e-mail subscriptions: mails per address, new ones per account, purge", async (t) => {
  const instance = await startInstance({
    worker: false,
    env: { EMAIL_SUBSCRIPTIONS: "true", EMAIL_DOMAIN_CHECK: "false" },
  });
  try {
    const { db } = instance.rookery.ctx.database;
    const people = await Promise.all(
      ["ann", "ben", "cat", "dan", "eve"].map((n) => createUser(instance, n)),
    );
    await setServerSetting(db, "email_subscriptions", true);
    await db.update(roleSettings).set({ emailSubscriptions: true })
      .where(eq(roleSettings.role, "user"));
    await db.update(users).set({ settings: { email_subscriptions_enabled: true } })
      .where(inArray(users.id, people.map((p) => p.userId)));
    const subscribe = async (accountId: string, email: string) => {
      const res = await instance.request(`/api/v1/accounts/${accountId}/email_subscriptions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email }),
      });
      await res.body?.cancel();
      return res.status;
    };

    await t.step("one address: 3 mails a day, all answered alike", async () => {
      for (const person of people.slice(0, 4)) {
        assert.equal(await subscribe(person.id, "target@example.com"), 200);
      }
      const mails = (await mailFiles(instance)).filter((m) => m.includes("target@example.com"));
      assert.equal(mails.length, 3);
      assert.equal((await db.select().from(emailSubscriptions)).length, 4);
    });

    await t.step("one account: 100 new unconfirmed an hour, then 429", async () => {
      const eve = people[4];
      await db.insert(emailSubscriptions).values(
        Array.from({ length: 100 }, (_, i) => ({
          id: newId(),
          accountId: eve.id,
          email: `bulk${i}@example.com`,
        })),
      );
      assert.equal(await subscribe(eve.id, "one-more@example.com"), 429);
      // Another account is not concerned.
      assert.equal(await subscribe(people[0].id, "one-more@example.com"), 200);
    });

    await t.step("the purge takes expired unconfirmed ones only", async () => {
      const old = new Date(Date.now() - 49 * 60 * 60 * 1000);
      await db.delete(emailSubscriptions);
      await db.insert(emailSubscriptions).values([
        { id: "1", accountId: people[0].id, email: "old@example.com", createdAt: old },
        {
          id: "2",
          accountId: people[0].id,
          email: "kept@example.com",
          createdAt: old,
          confirmedAt: old,
        },
        { id: "3", accountId: people[0].id, email: "new@example.com" },
      ]);
      assert.equal(await purgePendingSubscriptions(db), 1);
      const left = (await db.select().from(emailSubscriptions)).map((r) => r.email).sort();
      assert.deepEqual(left, ["kept@example.com", "new@example.com"]);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
