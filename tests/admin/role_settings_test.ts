/**
 * `role show`, `role set`, `setting show`, `setting set` (Mastodon 4.7's
 * per-role two-factor requirement, collection limit and e-mail
 * subscriptions; the server-wide e-mail subscription switch) through the
 * real command line with no server running; usage errors exit 2.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createTestDatabase, test, TEST_DATABASE_URL } from "../harness.ts";
import { openDatabase } from "../../db/connection.ts";
import { settingsOfRole } from "../../actors/roles/role_settings.ts";
import { serverSetting } from "../../actors/settings/server_settings.ts";
import { listAdminActions } from "../../actors/moderation/audit_log.ts";
import { cli, expectCode } from "./cli.ts";

test("admin CLI: role and server settings", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-admin-" });
  const database = TEST_DATABASE_URL ? await createTestDatabase() : null;
  const target = { dataDir, databaseUrl: database?.url ?? null };
  try {
    const set = await cli(
      target,
      "role",
      "set",
      "user",
      "--collection-limit",
      "3",
      "--email-subscriptions",
      "on",
    );
    expectCode(set, 0);
    assert.match(set.stdout, /user\s+off\s+3\s+on/);
    const show = await cli(target, "role", "show");
    expectCode(show, 0);
    assert.match(show.stdout, /moderator\s+off\s+10\s+off/);
    expectCode(await cli(target, "setting", "set", "email_subscriptions", "on"), 0);
    const settings = await cli(target, "setting", "show");
    assert.match(settings.stdout, /email_subscriptions\s+true/);

    expectCode(await cli(target, "role", "set", "boss", "--require-2fa", "on"), 2);
    expectCode(await cli(target, "role", "set", "user", "--require-2fa", "maybe"), 2);
    expectCode(await cli(target, "role", "set", "user", "--collection-limit", "-1"), 2);
    expectCode(await cli(target, "role", "set", "user"), 2);
    expectCode(await cli(target, "setting", "set", "registrations", "on"), 2);

    const db = await openDatabase({
      databaseUrl: target.databaseUrl,
      pgliteDir: join(dataDir, "db"),
    });
    try {
      const user = await settingsOfRole(db.db, "user");
      assert.equal(user.collectionLimit, 3);
      assert.equal(user.emailSubscriptions, true);
      assert.equal(user.requireTwoFactor, false);
      assert.equal(await serverSetting(db.db, "email_subscriptions"), true);
      // Both changes are audited, with no actor (the command line).
      const [setting] = await listAdminActions(db.db, { targetType: "Setting" });
      assert.equal(setting.humanIdentifier, "email_subscriptions=true");
      assert.equal(setting.accountId, null);
      assert.equal((await listAdminActions(db.db, { targetType: "UserRole" })).length, 1);
    } finally {
      await db.close();
    }
  } finally {
    await database?.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
