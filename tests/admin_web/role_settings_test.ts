/**
 * The staff pages /admin/roles and /admin/settings (Mastodon 4.7's per-role
 * two-factor requirement, collection limit and e-mail subscriptions; the
 * server's e-mail subscription switch), over plain HTTP: who may see and
 * change them (manage_roles, manage_settings: admins and the owner), the
 * form token, bad limits (422), no role above one's own, an admin's own
 * two-factor requirement left to the owner, the audit rows, and the
 * change taking effect (the 2FA set-up redirect, the subscription gate).
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { roleSettings, users } from "../../db/schema/mod.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { createUser } from "../fixtures/users.ts";
import { listAdminActions } from "../../actors/moderation/audit_log.ts";
import { serverSetting } from "../../actors/settings/server_settings.ts";
import { includes, signInOverHttp } from "./http_session.ts";

const instance = await startInstance({ worker: false });
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;
const staff = { ada: "admin", mona: "moderator", olive: "owner" } as const;
const people: Record<string, { id: string; userId: string }> = {};
for (const [name, role] of Object.entries(staff)) {
  people[name] = await createUser(instance, name);
  await db.update(users).set({ role }).where(eq(users.id, people[name].userId));
}
await createUser(instance, "pat");

const roleRow = async (role: string) =>
  (await db.select().from(roleSettings).where(eq(roleSettings.role, role)))[0];

/** The status of a response, its body read. */
async function statusOf(res: Response): Promise<number> {
  await res.body?.cancel();
  return res.status;
}

test("/admin/roles and /admin/settings: who may, and what is kept", async (t) => {
  const ada = await signInOverHttp(instance, "ada");
  const mona = await signInOverHttp(instance, "mona");
  const olive = await signInOverHttp(instance, "olive");
  const pat = await signInOverHttp(instance, "pat", "/");

  await t.step("only admins and the owner see them", async () => {
    for (const path of ["/admin/roles", "/admin/settings"]) {
      assert.equal(await statusOf(await mona.get(path)), 403);
      assert.equal(await statusOf(await pat.get(path)), 403);
      const stranger = await instance.request(path, { redirect: "manual" });
      assert.equal(await statusOf(stranger), 303);
      assert.match(stranger.headers.get("location")!, /^\/auth\/sign_in\?redirect_to=/);
    }
    assert.equal(
      await statusOf(await mona.post("/admin/roles/user", { collection_limit: "3" })),
      403,
    );
    assert.equal(
      await statusOf(await mona.post("/admin/settings", { email_subscriptions: "true" })),
      403,
    );
    assert.equal((await roleRow("user")).collectionLimit, 10);
    const page = await (await ada.get("/admin/roles")).text();
    includes(page, '<a href="/admin/roles" aria-current="page">Roles</a>');
    includes(page, '<a href="/admin/settings" >Settings</a>');
    // The admin may change every role but the owner's, which it only reads.
    for (const role of ["user", "moderator", "admin"]) {
      includes(page, `action="/admin/roles/${role}"`);
    }
    assert.ok(!page.includes('action="/admin/roles/owner"'));
    includes(page, "Collections per account: 10");
    const monaNav = await (await mona.get("/admin")).text();
    assert.ok(!monaNav.includes('href="/admin/roles"'));
  });

  await t.step("an admin changes a role: saved, audited", async () => {
    const res = await ada.post("/admin/roles/user", {
      collection_limit: "5",
      email_subscriptions: "true",
    });
    assert.equal(await statusOf(res), 303);
    assert.equal(res.headers.get("location"), "/admin/roles?notice=role_updated");
    const row = await roleRow("user");
    assert.deepEqual(
      [row.requireTwoFactor, row.collectionLimit, row.emailSubscriptions],
      [false, 5, true],
    );
    const [audit] = await listAdminActions(db, { targetType: "UserRole" });
    assert.equal(audit.accountId, people.ada.id);
    assert.equal(audit.action, "update");
    assert.equal(audit.humanIdentifier, "user");
    const page = await (await ada.get("/admin/roles?notice=role_updated")).text();
    includes(page, "The role&#39;s settings were saved.");
    includes(page, 'name="collection_limit" min="0" max="1000" required value="5"');
  });

  await t.step("refused: no token, a bad limit, an unknown role, a role above", async () => {
    const audits = (await listAdminActions(db)).length;
    const forged = await ada.post("/admin/roles/user", {
      authenticity_token: "forged",
      collection_limit: "7",
    });
    assert.equal(await statusOf(forged), 403);
    for (const limit of ["abc", "1001", "-1", "", "1e3"]) {
      const res = await ada.post("/admin/roles/user", { collection_limit: limit });
      assert.equal(res.status, 422, limit);
      includes(await res.text(), "Collection limit must be a number from 0 to 1000");
    }
    assert.equal(
      await statusOf(await ada.post("/admin/roles/nope", { collection_limit: "1" })),
      404,
    );
    const above = await ada.post("/admin/roles/owner", { collection_limit: "1" });
    assert.equal(above.status, 403);
    includes(await above.text(), "You cannot change a role above your own.");
    assert.equal((await roleRow("user")).collectionLimit, 5);
    assert.equal((await roleRow("owner")).collectionLimit, 10);
    assert.equal((await listAdminActions(db)).length, audits);
  });

  await t.step("an admin's own two-factor requirement is the owner's to change", async () => {
    const own = await ada.post("/admin/roles/admin", {
      require_two_factor: "true",
      collection_limit: "10",
    });
    assert.equal(own.status, 403);
    includes(await own.text(), "Only the owner can change whether your own role requires");
    assert.equal((await roleRow("admin")).requireTwoFactor, false);
    // The rest of its own role it may change (the unticked 2FA box is no change).
    assert.equal(
      await statusOf(await ada.post("/admin/roles/admin", { collection_limit: "20" })),
      303,
    );
    assert.equal((await roleRow("admin")).collectionLimit, 20);
    const same = await ada.post("/admin/roles/admin", { collection_limit: "20" });
    assert.equal(same.headers.get("location"), "/admin/roles?notice=role_unchanged");
    await same.body?.cancel();
    // The owner requires it of admins: the admin is sent to set it up.
    const byOwner = await olive.post("/admin/roles/admin", {
      require_two_factor: "true",
      collection_limit: "20",
    });
    assert.equal(await statusOf(byOwner), 303);
    assert.equal((await roleRow("admin")).requireTwoFactor, true);
    const sent = await ada.get("/admin/roles");
    assert.equal(await statusOf(sent), 303);
    assert.equal(sent.headers.get("location"), "/settings/otp_authentication");
  });

  await t.step("the server's e-mail subscription switch, audited", async () => {
    const page = await (await olive.get("/admin/settings")).text();
    includes(page, "EMAIL_SUBSCRIPTIONS is off");
    assert.ok(!/name="email_subscriptions" value="true" checked/.test(page));
    const on = await olive.post("/admin/settings", { email_subscriptions: "true" });
    assert.equal(await statusOf(on), 303);
    assert.equal(on.headers.get("location"), "/admin/settings?notice=settings_updated");
    assert.equal(await serverSetting(db, "email_subscriptions"), true);
    const [audit] = await listAdminActions(db, { targetType: "Setting" });
    assert.equal(audit.accountId, people.olive.id);
    assert.equal(audit.humanIdentifier, "email_subscriptions=true");
    includes(await (await olive.get("/admin/settings")).text(), "checked");
    assert.equal(await statusOf(await olive.post("/admin/settings", {})), 303);
    assert.equal(await serverSetting(db, "email_subscriptions"), false);
    assert.equal((await listAdminActions(db, { targetType: "Setting" })).length, 2);
  });
});
