/**
 * POST /api/v1/reports on one instance: the Report entity, every refusal
 * (unknown, suspended or invisible targets and statuses, long comments,
 * unknown categories and rules, garbage arrays, scopes), nothing written by
 * a refused report; `admin.report` reaching moderators and admins but not
 * plain users, the reporter or the target, once per unresolved target;
 * `admin.sign_up` on registration; and the role permission table.
 */
import assert from "node:assert/strict";
import { and, count, eq } from "drizzle-orm";
import { accounts, notifications, reports, users } from "../../db/schema/mod.ts";
import { addRule } from "../../actors/moderation/instance_rules.ts";
import {
  hasPermission,
  mayReceiveNotification,
  rolePermissions,
  rolesWith,
} from "../../model/permissions.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { appToken, signUp, signUpForm } from "../accounts/helpers.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";

async function setRole(instance: TestInstance, user: TestUser, role: string): Promise<void> {
  await instance.rookery.ctx.database.db.update(users).set({ role })
    .where(eq(users.id, user.userId));
}

async function reportCount(instance: TestInstance): Promise<number> {
  const [row] = await instance.rookery.ctx.database.db.select({ n: count() }).from(reports);
  return row.n;
}

/** The notifications of `user` of one type, newest first, through the API. */
async function notificationsOf(instance: TestInstance, user: TestUser, type: string) {
  const res = await callJson(instance, user, "GET", `/api/v1/notifications?types[]=${type}`);
  assert.equal(res.status, 200);
  return res.body as any[];
}

test("role permissions follow Mastodon's default roles", () => {
  assert.equal(hasPermission("moderator", "manage_reports"), true);
  assert.equal(hasPermission("moderator", "manage_users"), true);
  assert.equal(hasPermission("moderator", "manage_settings"), false);
  assert.equal(hasPermission("moderator", "manage_federation"), false);
  assert.equal(hasPermission("admin", "manage_roles"), true);
  assert.equal(hasPermission("admin", "manage_federation"), true);
  assert.equal(hasPermission("admin", "view_devops"), false);
  assert.equal(hasPermission("admin", "administrator"), false);
  assert.equal(hasPermission("owner", "view_devops"), true, "administrator grants every flag");
  assert.equal(hasPermission("user", "manage_reports"), false);
  assert.equal(hasPermission("user", "invite_users"), true);
  assert.equal(hasPermission("nobody-knows", "invite_users"), true, "unknown roles: everyone's");
  assert.equal(hasPermission("nobody-knows", "manage_users"), false);
  assert.deepEqual(rolesWith("manage_reports").sort(), ["admin", "moderator", "owner"]);
  assert.deepEqual(rolesWith("manage_settings").sort(), ["admin", "owner"]);
  assert.equal(rolePermissions("owner"), String((1 << 23) - 1), "every flag, 4.7's two included");
  // invite_users | view_dashboard | view_audit_log | view_feeds | manage_users | manage_reports | manage_taxonomies
  assert.equal(Number(rolePermissions("moderator")), 65536 + 8 + 4 + 1048576 + 1024 + 16 + 256);
  assert.equal(rolePermissions("user"), "65536");
  assert.equal(mayReceiveNotification("moderator", "admin.report"), true);
  assert.equal(mayReceiveNotification("moderator", "admin.sign_up"), true);
  assert.equal(mayReceiveNotification("user", "admin.report"), false);
  assert.equal(mayReceiveNotification("user", "admin.sign_up"), false);
  assert.equal(mayReceiveNotification("user", "mention"), true);
});

test("POST /api/v1/reports", async (t) => {
  const instance = await startInstance();
  const db = instance.rookery.ctx.database.db;
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const carol = await createUser(instance, "carol");
    const dave = await createUser(instance, "dave");
    const mod = await createUser(instance, "mod");
    const boss = await createUser(instance, "boss");
    await setRole(instance, mod, "moderator");
    await setRole(instance, boss, "admin");
    const [rule1, rule2] = [
      await addRule(db, { text: "Be nice" }),
      await addRule(db, { text: "No spam" }),
    ];
    const bobPublic = await postStatus(instance, bob, "buy my stuff");
    const bobPrivate = await postStatus(instance, bob, "friends only", { visibility: "private" });
    const bobDirect = await postStatus(instance, bob, "@carol psst", { visibility: "direct" });
    const alicePost = await postStatus(instance, alice, "hello");

    let firstReport: any;
    await t.step("a report returns the Report entity and tells staff", async () => {
      const res = await callJson(instance, alice, "POST", "/api/v1/reports", {
        account_id: bob.id,
        status_ids: [bobPublic.id],
        comment: "spam, obviously",
        category: "spam",
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      firstReport = res.body;
      assert.match(firstReport.id, /^\d+$/);
      assert.equal(firstReport.action_taken, false);
      assert.equal(firstReport.action_taken_at, null);
      assert.equal(firstReport.category, "spam");
      assert.equal(firstReport.comment, "spam, obviously");
      assert.equal(firstReport.forwarded, false);
      assert.deepEqual(firstReport.status_ids, [bobPublic.id]);
      assert.equal(firstReport.rule_ids, null);
      assert.equal(firstReport.target_account.id, bob.id);
      assert.equal(firstReport.target_account.acct, "bob");
      assert.ok(!Number.isNaN(Date.parse(firstReport.created_at)));
      const [row] = await db.select().from(reports).where(eq(reports.id, firstReport.id));
      assert.equal(row.accountId, alice.id);
      assert.equal(row.uri, null);

      for (const staff of [mod, boss]) {
        const list = await notificationsOf(instance, staff, "admin.report");
        assert.equal(list.length, 1, `${staff.username} told once`);
        assert.equal(list[0].type, "admin.report");
        assert.equal(list[0].account.id, alice.id, "the notification shows the reporter");
        assert.equal(list[0].report.id, firstReport.id);
        assert.equal(list[0].report.target_account.id, bob.id);
        assert.deepEqual(list[0].report.status_ids, [bobPublic.id]);
      }
      for (const plain of [alice, bob, carol, dave]) {
        assert.equal((await notificationsOf(instance, plain, "admin.report")).length, 0);
      }
      // The grouped API carries the report too.
      const grouped = await callJson(instance, mod, "GET", "/api/v2/notifications");
      assert.equal(grouped.status, 200);
      const group = grouped.body.notification_groups.find((g: any) => g.type === "admin.report");
      assert.equal(group?.report?.id, firstReport.id);
    });

    await t.step("another report on a target with an open report tells nobody again", async () => {
      const res = await callJson(instance, carol, "POST", "/api/v1/reports", {
        account_id: bob.id,
        comment: "me too",
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.category, "other");
      assert.deepEqual(res.body.status_ids, []);
      assert.equal((await notificationsOf(instance, mod, "admin.report")).length, 1);
    });

    await t.step("staff are not told of their own report, nor of one about them", async () => {
      const byMod = await callJson(instance, mod, "POST", "/api/v1/reports", {
        account_id: dave.id,
      });
      assert.equal(byMod.status, 200);
      assert.equal((await notificationsOf(instance, mod, "admin.report")).length, 1);
      const bossList = await notificationsOf(instance, boss, "admin.report");
      assert.equal(bossList.length, 2);
      assert.equal(bossList[0].account.id, mod.id);

      const aboutMod = await callJson(instance, dave, "POST", "/api/v1/reports", {
        account_id: mod.id,
      });
      assert.equal(aboutMod.status, 200);
      assert.equal((await notificationsOf(instance, mod, "admin.report")).length, 1);
      assert.equal((await notificationsOf(instance, boss, "admin.report")).length, 3);
    });

    await t.step("rule_ids make a violation report; they must be this instance's", async () => {
      const res = await callJson(instance, alice, "POST", "/api/v1/reports", {
        account_id: carol.id,
        category: "spam",
        rule_ids: [rule2.id, rule1.id, rule2.id],
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.category, "violation");
      assert.deepEqual(res.body.rule_ids, [rule2.id, rule1.id]);

      const before = await reportCount(instance);
      for (
        const body of [
          { account_id: carol.id, category: "violation" },
          { account_id: carol.id, rule_ids: ["12345"] },
          { account_id: carol.id, rule_ids: ["not-an-id"] },
          { account_id: carol.id, rule_ids: [rule1.id, "99999999999999999999999"] },
        ]
      ) {
        const refused = await callJson(instance, alice, "POST", "/api/v1/reports", body);
        assert.equal(refused.status, 422, JSON.stringify(body));
        assert.equal(
          refused.body.error,
          "Validation failed: Rule ids does not reference valid rules",
        );
      }
      assert.equal(await reportCount(instance), before, "nothing written");
    });

    await t.step("comment, category and list validation", async () => {
      const before = await reportCount(instance);
      const long = await callJson(instance, alice, "POST", "/api/v1/reports", {
        account_id: dave.id,
        comment: "x".repeat(1001),
      });
      assert.equal(long.status, 422);
      assert.equal(
        long.body.error,
        "Validation failed: Comment is too long (maximum is 1000 characters)",
      );
      const huge = await callJson(instance, alice, "POST", "/api/v1/reports", {
        account_id: dave.id,
        comment: "y".repeat(200_000),
      });
      assert.ok([413, 422].includes(huge.status), `huge comment: ${huge.status}`);
      const category = await callJson(instance, alice, "POST", "/api/v1/reports", {
        account_id: dave.id,
        category: "rude",
      });
      assert.equal(category.status, 422);
      assert.equal(category.body.error, "Validation failed: Category is not included in the list");
      for (
        const body of [
          { account_id: dave.id, status_ids: { nested: "object" } },
          { account_id: dave.id, status_ids: [{ id: "1" }] },
          { account_id: dave.id, rule_ids: [[rule1.id]] },
          { account_id: dave.id, status_ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) },
          { account_id: { id: dave.id } },
        ]
      ) {
        const res = await callJson(instance, alice, "POST", "/api/v1/reports", body);
        assert.equal(res.status, 422, JSON.stringify(body).slice(0, 80));
        assert.match(res.body.error, /^Validation failed: /);
      }
      const ok = await callJson(instance, alice, "POST", "/api/v1/reports", {
        account_id: dave.id,
        comment: "é".repeat(1000),
      });
      assert.equal(ok.status, 200, "1,000 characters are allowed, whatever their bytes");
      assert.equal(await reportCount(instance), before + 1);
    });

    await t.step("unknown, suspended and invisible things are 404, nothing written", async () => {
      const before = await reportCount(instance);
      const cases: [string, Record<string, unknown>][] = [
        ["no account_id", {}],
        ["unknown account", { account_id: "123456789" }],
        ["garbage account id", { account_id: "../../etc" }],
        ["someone else's status", { account_id: bob.id, status_ids: [alicePost.id] }],
        ["a private status of someone not followed", {
          account_id: bob.id,
          status_ids: [bobPrivate.id],
        }],
        ["a direct status not addressed to the reporter", {
          account_id: bob.id,
          status_ids: [bobPublic.id, bobDirect.id],
        }],
        ["a garbage status id", { account_id: bob.id, status_ids: ["abc"] }],
        ["an unknown status id", { account_id: bob.id, status_ids: ["987654321"] }],
      ];
      for (const [what, body] of cases) {
        const res = await callJson(instance, alice, "POST", "/api/v1/reports", body);
        assert.equal(res.status, 404, what);
        assert.deepEqual(res.body, { error: "Record not found" }, what);
      }
      // Carol was addressed by the direct status: she may attach it.
      const carolSees = await callJson(instance, carol, "POST", "/api/v1/reports", {
        account_id: bob.id,
        status_ids: [bobDirect.id],
      });
      assert.equal(carolSees.status, 200);
      const suspendedTarget = await createUser(instance, "gone");
      await db.update(accounts).set({ suspendedAt: new Date() })
        .where(eq(accounts.id, suspendedTarget.id));
      const suspended = await callJson(instance, alice, "POST", "/api/v1/reports", {
        account_id: suspendedTarget.id,
      });
      assert.equal(suspended.status, 404);
      assert.equal(await reportCount(instance), before + 1);
    });

    await t.step("forms, scopes, forward on a local account, self-reports", async () => {
      // Form-encoded, with a trailing slash, as Rails takes it.
      const formRes = await instance.request("/api/v1/reports/", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${alice.token}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: `account_id=${bob.id}&status_ids[]=${bobPublic.id}&forward=true` +
          `&forward_to_domains[]=%20%20&comment=form%20report`,
      });
      const formBody = await formRes.json();
      assert.equal(formRes.status, 200, JSON.stringify(formBody));
      assert.equal(formBody.comment, "form report");
      assert.equal(formBody.forwarded, false, "a local account is never forwarded");
      const [row] = await db.select().from(reports).where(eq(reports.id, formBody.id));
      assert.deepEqual(row.forwardToDomains, []);

      const anonymous = await callJson(instance, null, "POST", "/api/v1/reports", {
        account_id: bob.id,
      });
      assert.equal(anonymous.status, 401);
      const readOnly = await createUser(instance, "reader", { scopes: ["read"] });
      const refused = await callJson(instance, readOnly, "POST", "/api/v1/reports", {
        account_id: bob.id,
      });
      assert.equal(refused.status, 403);
      const narrow = await createUser(instance, "narrow", { scopes: ["write:reports"] });
      const allowed = await callJson(instance, narrow, "POST", "/api/v1/reports", {
        account_id: bob.id,
      });
      assert.equal(allowed.status, 200);

      // Mastodon does not refuse a report of oneself; staff see it like any other.
      const self = await callJson(instance, dave, "POST", "/api/v1/reports", {
        account_id: dave.id,
        comment: "I regret everything",
      });
      assert.equal(self.status, 200);
      assert.equal(self.body.target_account.id, dave.id);
    });

    await t.step("forward on a remote account: its domains are checked and kept", async () => {
      const remote = await insertRemoteAccount(instance, "faraway", "remote.example", {
        inboxUrl: "https://remote.example/users/faraway/inbox",
      });
      const before = await reportCount(instance);
      const bad = await callJson(instance, alice, "POST", "/api/v1/reports", {
        account_id: remote,
        forward: true,
        forward_to_domains: ["remote.example", "not a domain/at all"],
      });
      assert.equal(bad.status, 422);
      assert.equal(bad.body.error, "Validation failed: Forward to domains is invalid");
      assert.equal(await reportCount(instance), before);
      // Without forward, the domains are not even looked at.
      const unforwarded = await callJson(instance, alice, "POST", "/api/v1/reports", {
        account_id: remote,
        forward_to_domains: ["not a domain/at all"],
      });
      assert.equal(unforwarded.status, 200);
      assert.equal(unforwarded.body.forwarded, false);
      // Only another server asked for: not forwarded to the account's own.
      const elsewhere = await callJson(instance, alice, "POST", "/api/v1/reports", {
        account_id: remote,
        forward: "1",
        forward_to_domains: ["Other.Example."],
      });
      assert.equal(elsewhere.status, 200);
      assert.equal(elsewhere.body.forwarded, false);
      const [row] = await db.select().from(reports).where(eq(reports.id, elsewhere.body.id));
      assert.deepEqual(row.forwardToDomains, ["other.example"]);
    });

    await t.step("admin.sign_up reaches account managers on registration", async () => {
      const { token } = await appToken(instance);
      const res = await signUp(instance, token, signUpForm("newcomer"));
      assert.equal(res.status, 200);
      await res.body?.cancel();
      const [fresh] = await db.select({ id: accounts.id }).from(accounts)
        .where(eq(accounts.username, "newcomer"));
      for (const staff of [mod, boss]) {
        const list = await notificationsOf(instance, staff, "admin.sign_up");
        assert.equal(list.length, 1, staff.username);
        assert.equal(list[0].account.id, fresh.id);
        assert.equal(list[0].report, undefined);
      }
      for (const plain of [alice, dave]) {
        assert.equal((await notificationsOf(instance, plain, "admin.sign_up")).length, 0);
      }
      const [{ n }] = await db.select({ n: count() }).from(notifications).where(and(
        eq(notifications.type, "admin.sign_up"),
        eq(notifications.fromAccountId, fresh.id),
      ));
      assert.equal(n, 2);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
