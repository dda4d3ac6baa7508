/**
 * Two-factor sign-in required per role (Mastodon 4.7): a member of such a
 * role without it is sent from the settings pages, the staff pages and the
 * OAuth consent to the set-up page (which stays open); once set up, all
 * opens again and turning it off is refused; other roles are untouched.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { roleSettings, users } from "../../db/schema/mod.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";

test("two-factor sign-in required by the role", async (t) => {
  const instance = await startInstance({ worker: false });
  try {
    const { db } = instance.rookery.ctx.database;
    const [boss] = await Promise.all([
      createUser(instance, "boss"),
      createUser(instance, "bob"),
    ]);
    await db.update(users).set({ role: "admin" }).where(eq(users.id, boss.userId));
    await db.update(roleSettings).set({ requireTwoFactor: true })
      .where(eq(roleSettings.role, "admin"));
    const app = await (await instance.request("/api/v1/apps", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Client",
        redirect_uris: "urn:ietf:wg:oauth:2.0:oob",
        scopes: "read",
      }),
    })).json();
    const authorize = `/oauth/authorize?response_type=code&client_id=${app.client_id}` +
      `&redirect_uri=urn:ietf:wg:oauth:2.0:oob&scope=read`;
    const session = await signInOverHttp(instance, "boss", "/");
    const status = async (path: string) => {
      const res = await session.get(path);
      await res.body?.cancel();
      return [res.status, res.headers.get("location")];
    };

    await t.step("without it: every gated page sends to the set-up page", async () => {
      const setup = [303, "/settings/otp_authentication"];
      assert.deepEqual(await status("/settings/profile"), setup);
      assert.deepEqual(await status("/admin"), setup);
      assert.deepEqual(await status(authorize), setup);
      assert.equal((await status("/settings/otp_authentication"))[0], 200);
      // Another role is not concerned.
      const other = await signInOverHttp(instance, "bob", "/");
      const res = await other.get("/settings/profile");
      assert.equal(res.status, 200);
      await res.body?.cancel();
    });

    await t.step("with it: pages open, and it cannot be turned off", async () => {
      await db.update(users).set({ otpRequiredForLogin: true, otpSecret: "JBSWY3DPEHPK3PXP" })
        .where(eq(users.id, boss.userId));
      assert.equal((await status("/settings/profile"))[0], 200);
      assert.equal((await status("/admin"))[0], 200);
      assert.equal((await status(authorize))[0], 200);
      const off = await session.post("/settings/otp_authentication/disable", {
        password: TEST_PASSWORD,
        otp_attempt: "000000",
      });
      assert.equal(off.status, 422);
      assert.match(await off.text(), /Your role requires two-factor sign-in/);
      const [row] = await db.select({ on: users.otpRequiredForLogin }).from(users)
        .where(eq(users.id, boss.userId));
      assert.equal(row.on, true);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
