/**
 * The admin `active_users` measure counts people who used the server (the
 * API with a token, a web sign-in), as Mastodon counts sign-in activity, not
 * only those who posted; the activity is recorded once per user and day.
 * The `sources` dimension counts sign-ups by the application they came
 * through ("web" for accounts made without one).
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { oauthApplications, userActivityDays, users } from "../../db/schema/mod.ts";
import { createWebSession } from "../../actors/auth/sessions.ts";
import { startInstance, test } from "../harness.ts";
import { callJson, ok } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { appToken, signUp, signUpForm } from "../accounts/helpers.ts";

const DAY = 86_400_000;
const day = (offset = 0) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);

test("active_users and sources", async (t) => {
  const instance = await startInstance({ worker: false });
  const { db } = instance.rookery.ctx.database;
  try {
    const mod = await createUser(instance, "mod", { scopes: ["read", "admin:read"] });
    await db.update(users).set({ role: "moderator" }).where(eq(users.id, mod.userId));
    await t.step("active_users counts API and web activity, one row per user and day", async () => {
      const reader = await createUser(instance, "reader");
      const webby = await createUser(instance, "webby");
      const idle = await createUser(instance, "idle");

      // reader only reads, several times; webby signs in on the web; idle does nothing today.
      for (let i = 0; i < 3; i++) await ok(instance, reader, "GET", "/api/v1/timelines/home");
      await ok(instance, reader, "GET", "/api/v1/accounts/verify_credentials");
      await createWebSession(db, instance.rookery.ctx.core.activity, webby.userId);
      // idle was active yesterday (as the recorder would have written it).
      await db.insert(userActivityDays).values({ userId: idle.userId, day: day(-1) });

      const rows = await db.select().from(userActivityDays)
        .where(eq(userActivityDays.userId, reader.userId));
      assert.deepEqual(rows.map((r) => r.day), [day()], "one row for many requests");

      const res = await callJson(instance, mod, "POST", "/api/v1/admin/measures", {
        keys: ["active_users"],
        start_at: day(-1),
        end_at: day(),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const [m] = res.body;
      assert.equal(m.key, "active_users");
      // Today: reader, webby and the moderator asking; yesterday: idle.
      assert.deepEqual(m.data, [
        { date: `${day(-1)}T00:00:00Z`, value: "1" },
        { date: `${day()}T00:00:00Z`, value: "3" },
      ]);
      assert.equal(m.total, "4");
      assert.equal(m.previous_total, "0");

      const next = await callJson(instance, mod, "POST", "/api/v1/admin/measures", {
        keys: ["active_users"],
        start_at: day(1),
        end_at: day(2),
      });
      assert.equal(next.body[0].previous_total, "4", "the window before counts them too");
      assert.equal(next.body[0].total, "0");
    });

    await t.step("sources: sign-ups by application", async () => {
      const { token, clientId } = await appToken(instance);
      for (const name of ["src1", "src2"]) {
        const res = await signUp(instance, token, signUpForm(name));
        assert.equal(res.status, 200, await res.text());
      }
      // The Admin::Account entity names the application too.
      const [app] = await db.select().from(oauthApplications)
        .where(eq(oauthApplications.clientId, clientId));
      const [src1] = await db.select().from(users).where(eq(users.email, "src1@example.com"));
      const shown = await callJson(
        instance,
        mod,
        "GET",
        `/api/v1/admin/accounts/${src1.accountId}`,
      );
      assert.equal(shown.status, 200, JSON.stringify(shown.body));
      assert.equal(shown.body.created_by_application_id, app.id);
      const plain = await callJson(instance, mod, "GET", `/api/v1/admin/accounts/${mod.id}`);
      assert.equal("created_by_application_id" in plain.body, false);
      const res = await callJson(instance, mod, "POST", "/api/v1/admin/dimensions", {
        keys: ["sources"],
        start_at: day(),
        end_at: day(),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body[0].data, [
        // mod, reader, webby and idle were made by the test without an application.
        { key: "web", human_key: "Website", value: "4" },
        { key: "Test client", human_key: "Test client", value: "2" },
      ]);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
