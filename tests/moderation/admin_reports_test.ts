/**
 * The admin reports API and the `report` admin commands on one instance
 * (with its admin socket, so the command line acts on the same database):
 * the Admin::Report entity (accounts, staff-only statuses, rules), the role
 * and scope matrix, the lifecycle assign → resolve → reopen → unassign with
 * its audit rows, update's validation, filters, Link pagination, hostile
 * ids and bodies (404/422 with nothing written), and `report list|resolve`.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { PgPreparedQuery } from "drizzle-orm/pg-core";
import { reports, users } from "../../db/schema/mod.ts";
import { addRule } from "../../actors/moderation/instance_rules.ts";
import { listAdminActions } from "../../actors/moderation/audit_log.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { call, callJson, ok, postStatus } from "../fixtures/api.ts";
import { createToken, createUser, type TestUser } from "../fixtures/users.ts";
import { cli, expectCode } from "../admin/cli.ts";

const STAFF_SCOPES = ["read", "write", "admin:read", "admin:write"];

async function setRole(instance: TestInstance, user: { userId: string }, role: string) {
  await instance.rookery.ctx.database.db.update(users).set({ role })
    .where(eq(users.id, user.userId));
}

/** The `rel` → URL map of a Link header. */
function links(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (headers.get("Link") ?? "").split(",")) {
    const m = /<([^>]+)>;\s*rel="(\w+)"/.exec(part);
    if (m) out[m[2]] = m[1];
  }
  return out;
}

/** A JSON body for writes; reads send none (fetch refuses a GET with a body). */
function bodyFor(method: string, body: Record<string, unknown>) {
  return method === "GET" ? undefined : body;
}

/** How many SQL statements `run` sends (every drizzle query goes through queryWithCache). */
async function statementsDuring(run: () => Promise<unknown>): Promise<number> {
  const proto = PgPreparedQuery.prototype as unknown as {
    queryWithCache: (...args: unknown[]) => Promise<unknown>;
  };
  const original = proto.queryWithCache;
  let count = 0;
  proto.queryWithCache = function (this: unknown, ...args: unknown[]) {
    count++;
    return original.apply(this, args);
  };
  try {
    await run();
  } finally {
    proto.queryWithCache = original;
  }
  return count;
}

function ids(list: { id: string }[]): string[] {
  return list.map((r) => r.id);
}

test("admin reports API and report commands", async (t) => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-admin-reports-" });
  const instance = await startInstance({
    dataDir,
    memory: false,
    worker: false,
    adminSocket: true,
  });
  const target = { dataDir, databaseUrl: instance.databaseUrl };
  const { db } = instance.rookery.ctx.database;
  const auditOf = (id: string) =>
    listAdminActions(db, { targetType: "Report", targetId: id }).then((rows) =>
      rows.map((r) => [r.action, r.accountId])
    );
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const carol = await createUser(instance, "carol");
    const mod = await createUser(instance, "mod", { scopes: STAFF_SCOPES });
    const boss = await createUser(instance, "boss", { scopes: STAFF_SCOPES });
    const owner = await createUser(instance, "owner", { scopes: STAFF_SCOPES });
    const plain = await createUser(instance, "plain", { scopes: STAFF_SCOPES });
    await setRole(instance, mod, "moderator");
    await setRole(instance, boss, "admin");
    await setRole(instance, owner, "owner");
    // The moderator's other tokens: without any admin scope, and read-only admin.
    const modNoAdmin = await createToken(instance, mod.userId, ["read", "write"]);
    const modReadOnly = await createToken(instance, mod.userId, ["admin:read:reports"]);

    const [rule1, rule2] = [
      await addRule(db, { text: "Be nice" }),
      await addRule(db, { text: "No spam", hint: "None at all" }),
    ];
    const bobPublic = await postStatus(instance, bob, "buy my stuff");
    const bobDirect = await postStatus(instance, bob, "@alice psst, buy it", {
      visibility: "direct",
    });
    const bobGone = await postStatus(instance, bob, "soon deleted");

    const file = async (who: TestUser, body: Record<string, unknown>) =>
      (await ok(instance, who, "POST", "/api/v1/reports", body)).id as string;
    const r1 = await file(alice, {
      account_id: bob.id,
      status_ids: [bobDirect.id, bobPublic.id, bobGone.id],
      comment: "rude and spammy",
      rule_ids: [rule1.id],
    });
    const r2 = await file(carol, { account_id: bob.id, comment: "me too" });
    const r3 = await file(alice, { account_id: carol.id, category: "spam" });
    const r4 = await file(bob, { account_id: alice.id });
    const r5 = await file(carol, { account_id: alice.id });
    assert.equal(
      (await call(instance, bob, "DELETE", `/api/v1/statuses/${bobGone.id}`)).status,
      200,
    );

    await t.step("Admin::Report: accounts, statuses staff alone may see, rules", async () => {
      const res = await callJson(instance, mod, "GET", `/api/v1/admin/reports/${r1}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const report = res.body;
      assert.deepEqual(Object.keys(report), [
        "id",
        "action_taken",
        "action_taken_at",
        "category",
        "comment",
        "forwarded",
        "created_at",
        "updated_at",
        "account",
        "target_account",
        "assigned_account",
        "action_taken_by_account",
        "statuses",
        "rules",
      ]);
      assert.equal(report.id, r1);
      assert.equal(report.action_taken, false);
      assert.equal(report.action_taken_at, null);
      assert.equal(report.category, "violation");
      assert.equal(report.comment, "rude and spammy");
      assert.equal(report.forwarded, false);
      assert.ok(Date.parse(report.updated_at) >= Date.parse(report.created_at));
      // Admin::Account entities, with the public Account inside.
      assert.equal(report.account.id, alice.id);
      assert.equal(report.account.username, "alice");
      assert.equal(report.account.email, "alice@example.com");
      assert.equal(report.account.account.acct, "alice");
      assert.equal(report.target_account.id, bob.id);
      assert.equal(report.target_account.account.id, bob.id);
      assert.equal(report.assigned_account, null);
      assert.equal(report.action_taken_by_account, null);
      // The direct message and the deleted status are there for staff, in the reporter's order.
      assert.deepEqual(ids(report.statuses), [bobDirect.id, bobPublic.id, bobGone.id]);
      assert.equal(report.statuses[0].visibility, "direct");
      assert.match(report.statuses[0].content, /psst/);
      assert.match(report.statuses[2].content, /soon deleted/);
      assert.equal(report.statuses[0].account.id, bob.id);
      // … which the moderator could not read otherwise.
      const direct = await call(instance, mod, "GET", `/api/v1/statuses/${bobDirect.id}`);
      assert.equal(direct.status, 404);
      await direct.body?.cancel();
      assert.deepEqual(report.rules, [
        { id: rule1.id, text: "Be nice", hint: "", translations: {} },
      ]);
    });

    await t.step(
      "roles and scopes: moderators, admins and the owner may; users may not",
      async () => {
        const reads = [["GET", "/api/v1/admin/reports"], ["GET", `/api/v1/admin/reports/${r3}`]];
        const writes = [
          ["PUT", `/api/v1/admin/reports/${r3}`],
          ["POST", `/api/v1/admin/reports/${r3}/assign_to_self`],
          ["POST", `/api/v1/admin/reports/${r3}/unassign`],
          ["POST", `/api/v1/admin/reports/${r3}/resolve`],
          ["POST", `/api/v1/admin/reports/${r3}/reopen`],
        ];
        const before = (await listAdminActions(db)).length;
        for (const [method, path] of [...reads, ...writes]) {
          const denied = await callJson(instance, plain, method, path, bodyFor(method, {}));
          assert.equal(denied.status, 403, `user: ${method} ${path}`);
          assert.deepEqual(denied.body, { error: "This action is not allowed" });
          const scopeless = await callJson(instance, modNoAdmin, method, path, bodyFor(method, {}));
          assert.equal(scopeless.status, 403, `no admin scope: ${method} ${path}`);
          assert.match(scopeless.body.error, /outside the authorized scopes/);
          const anonymous = await callJson(instance, null, method, path, bodyFor(method, {}));
          assert.equal(anonymous.status, 401, `anonymous: ${method} ${path}`);
        }
        for (const [method, path] of reads) {
          assert.equal((await callJson(instance, modReadOnly, method, path)).status, 200);
        }
        for (const [method, path] of writes) {
          const res = await callJson(instance, modReadOnly, method, path, {});
          assert.equal(res.status, 403, `read-only admin token: ${method} ${path}`);
        }
        assert.equal((await listAdminActions(db)).length, before, "refusals write no audit row");
        for (const staff of [mod, boss, owner]) {
          for (const [method, path] of [...reads, ...writes]) {
            const res = await callJson(instance, staff, method, path, bodyFor(method, {}));
            assert.equal(res.status, 200, `${staff.username}: ${method} ${path}`);
          }
        }
        // Each staff member's five writes are in the log under their own account.
        const log = await auditOf(r3);
        assert.equal(log.length, 15);
        assert.deepEqual(log.slice(0, 5), [
          ["reopen", owner.id],
          ["resolve", owner.id],
          ["unassigned", owner.id],
          ["assigned_to_self", owner.id],
          ["update", owner.id],
        ]);
        assert.ok(log.slice(5, 10).every(([, by]) => by === boss.id));
        assert.ok(log.slice(10).every(([, by]) => by === mod.id));
      },
    );

    await t.step(
      "lifecycle: assign, resolve, reopen, unassign, each with its audit row",
      async () => {
        const path = `/api/v1/admin/reports/${r2}`;
        const before = (await ok(instance, mod, "GET", path)).updated_at;
        const assigned = await ok(instance, mod, "POST", `${path}/assign_to_self`);
        assert.equal(assigned.assigned_account.id, mod.id);
        assert.equal(assigned.assigned_account.role.name, "Moderator");
        assert.ok(Date.parse(assigned.updated_at) > Date.parse(before), "updated_at moves");

        const resolved = await ok(instance, mod, "POST", `${path}/resolve`);
        assert.equal(resolved.action_taken, true);
        assert.ok(Date.parse(resolved.action_taken_at) >= Date.parse(assigned.updated_at));
        assert.equal(resolved.action_taken_by_account.id, mod.id);
        assert.equal(resolved.assigned_account.id, mod.id);
        const [row] = await db.select().from(reports).where(eq(reports.id, r2));
        assert.equal(row.actionTakenByAccountId, mod.id);
        assert.ok(row.actionTakenAt);

        // The reporter's view (the Report entity of a notification) agrees.
        const reopened = await ok(instance, boss, "POST", `${path}/reopen`);
        assert.equal(reopened.action_taken, false);
        assert.equal(reopened.action_taken_at, null);
        assert.equal(reopened.action_taken_by_account, null);
        assert.equal(reopened.assigned_account.id, mod.id, "reopening keeps the assignee");

        const unassigned = await ok(instance, boss, "POST", `${path}/unassign`);
        assert.equal(unassigned.assigned_account, null);
        // Unassigning again changes nothing but is still a logged action (as Mastodon).
        const again = await ok(instance, boss, "POST", `${path}/unassign`);
        assert.equal(again.updated_at, unassigned.updated_at, "no change, no new updated_at");

        assert.deepEqual(await auditOf(r2), [
          ["unassigned", boss.id],
          ["unassigned", boss.id],
          ["reopen", boss.id],
          ["resolve", mod.id],
          ["assigned_to_self", mod.id],
        ]);
        const [entry] = await listAdminActions(db, {
          targetType: "Report",
          targetId: r2,
          limit: 1,
        });
        assert.equal(entry.humanIdentifier, r2);
      },
    );

    await t.step("update: category and rules, as Mastodon validates them", async () => {
      const path = `/api/v1/admin/reports/${r4}`;
      const spam = await ok(instance, mod, "PUT", path, { category: "spam" });
      assert.equal(spam.category, "spam");
      assert.deepEqual(spam.rules, []);

      // Form parameters work as JSON does (rule_ids[]).
      const form = await instance.request(path, {
        method: "PUT",
        headers: {
          Authorization: `Bearer ${mod.token}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: `category=violation&rule_ids[]=${rule2.id}&rule_ids[]=${rule1.id}`,
      });
      assert.equal(form.status, 200);
      const violation = await form.json();
      assert.equal(violation.category, "violation");
      assert.deepEqual(violation.rules.map((r: any) => r.id), [rule2.id, rule1.id]);
      assert.equal(violation.rules[0].hint, "None at all");

      const refusals: [Record<string, unknown>, RegExp][] = [
        [{ category: "nonsense" }, /Category is not included in the list/],
        [{ category: "spam", rule_ids: [rule1.id] }, /Rule ids must be blank/],
        [{ rule_ids: ["999999"] }, /Rule ids does not reference valid rules/],
        [{ rule_ids: ["not-an-id", rule1.id] }, /Rule ids does not reference valid rules/],
        [{ rule_ids: [] }, /Rule ids does not reference valid rules/],
        [{ category: { nested: true } }, /Category is invalid/],
        [{ rule_ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) }, /too many/],
        [{ category: "x".repeat(100) }, /too long/],
      ];
      const logged = (await auditOf(r4)).length;
      for (const [body, message] of refusals) {
        const res = await callJson(instance, mod, "PUT", path, body);
        assert.equal(res.status, 422, JSON.stringify(body).slice(0, 80));
        assert.match(res.body.error, message);
      }
      const [row] = await db.select().from(reports).where(eq(reports.id, r4));
      assert.equal(row.category, "violation");
      assert.deepEqual(row.ruleIds, [rule2.id, rule1.id]);
      assert.equal((await auditOf(r4)).length, logged, "a refused update is not logged");

      // A new category alone drops the rules a non-violation cannot keep.
      const other = await ok(instance, mod, "PUT", path, { category: "other" });
      assert.equal(other.category, "other");
      assert.deepEqual(other.rules, []);
      const [after] = await db.select().from(reports).where(eq(reports.id, r4));
      assert.equal(after.ruleIds, null);
      // Nothing asked, nothing changed (but logged).
      const same = await ok(instance, mod, "PUT", `${path}/`, {});
      assert.equal(same.updated_at, other.updated_at);
      assert.deepEqual((await auditOf(r4)).map(([a]) => a), [
        "update",
        "update",
        "update",
        "update",
      ]);
    });

    await t.step("filters: resolved, account_id, target_account_id", async () => {
      await ok(instance, mod, "POST", `/api/v1/admin/reports/${r1}/resolve`);
      const list = async (query: string) => {
        const res = await callJson(instance, mod, "GET", `/api/v1/admin/reports${query}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return ids(res.body);
      };
      // r3 was reopened by the owner; r1 is the only resolved one.
      assert.deepEqual(await list(""), [r5, r4, r3, r2]);
      assert.deepEqual(await list("?resolved=false"), [r5, r4, r3, r2]);
      assert.deepEqual(await list("?resolved=true"), [r1]);
      assert.deepEqual(await list(`?resolved=true&account_id=${alice.id}`), [r1]);
      assert.deepEqual(await list(`?account_id=${alice.id}`), [r3]);
      assert.deepEqual(await list(`?account_id=${carol.id}`), [r5, r2]);
      assert.deepEqual(await list(`?target_account_id=${alice.id}`), [r5, r4]);
      assert.deepEqual(await list(`?target_account_id=${bob.id}&account_id=${carol.id}`), [r2]);
      // Ids that match nothing, or cannot be ids, are an empty list, not an error.
      assert.deepEqual(await list("?account_id=12345"), []);
      assert.deepEqual(await list("?account_id=robert'); DROP TABLE reports;--"), []);
      assert.deepEqual(await list("?target_account_id=99999999999999999999999"), []);
      const batch = await callJson(instance, mod, "GET", "/api/v1/admin/reports?resolved=true");
      assert.equal(batch.body[0].statuses.length, 3, "lists carry statuses too");
      assert.equal(batch.body[0].action_taken_by_account.id, mod.id);
    });

    await t.step("pagination: limit and Link headers", async () => {
      const first = await callJson(instance, mod, "GET", "/api/v1/admin/reports?limit=2");
      assert.deepEqual(ids(first.body), [r5, r4]);
      const l1 = links(first.headers);
      assert.ok(l1.next.startsWith(instance.origin));
      assert.match(l1.next, new RegExp(`max_id=${r4}`));
      assert.match(l1.next, /limit=2/);
      assert.match(l1.prev, new RegExp(`min_id=${r5}`));
      const second = await callJson(instance, mod, "GET", l1.next);
      assert.deepEqual(ids(second.body), [r3, r2]);
      const l2 = links(second.headers);
      const third = await callJson(instance, mod, "GET", l2.next);
      assert.deepEqual(ids(third.body), []);
      assert.equal(third.headers.get("Link"), null);
      const back = await callJson(instance, mod, "GET", l2.prev);
      assert.deepEqual(ids(back.body), [r5, r4]);
      const since = await callJson(instance, mod, "GET", `/api/v1/admin/reports?since_id=${r3}`);
      assert.deepEqual(ids(since.body), [r5, r4]);
      // The filters ride along in the links.
      const filtered = await callJson(
        instance,
        mod,
        "GET",
        `/api/v1/admin/reports?limit=1&target_account_id=${alice.id}`,
      );
      assert.deepEqual(ids(filtered.body), [r5]);
      const next = await callJson(instance, mod, "GET", links(filtered.headers).next);
      assert.deepEqual(ids(next.body), [r4]);
      // limit is clamped to 200, garbage is the default.
      const big = await callJson(instance, mod, "GET", "/api/v1/admin/reports?limit=5000");
      assert.equal(big.status, 200);
      assert.equal(big.body.length, 4);
      const junk = await callJson(instance, mod, "GET", "/api/v1/admin/reports?limit=abc");
      assert.equal(junk.body.length, 4);
    });

    await t.step("hostile ids: 404 and nothing written", async () => {
      const before = (await listAdminActions(db)).length;
      for (const id of ["1", "abc", "99999999999999999999999", "-1", "%00", r1 + "0"]) {
        const base = `/api/v1/admin/reports/${id}`;
        for (
          const [method, path] of [
            ["GET", base],
            ["PUT", base],
            ["POST", `${base}/assign_to_self`],
            ["POST", `${base}/unassign`],
            ["POST", `${base}/resolve`],
            ["POST", `${base}/reopen`],
          ]
        ) {
          // A body that would be refused does not make an unknown report a 422.
          const res = await callJson(
            instance,
            mod,
            method,
            path,
            bodyFor(method, { category: "nonsense", rule_ids: { a: 1 } }),
          );
          assert.equal(res.status, 404, `${method} ${path}`);
          assert.deepEqual(res.body, { error: "Record not found" });
        }
      }
      assert.equal((await listAdminActions(db)).length, before);
    });

    await t.step(
      "hostile bodies and queries: a clear 4xx or a harmless 200, never a 5xx",
      async () => {
        const path = `/api/v1/admin/reports/${r3}`;
        const bodies: Record<string, unknown>[] = [
          { category: ["spam"] },
          { category: 5 },
          { category: null },
          { category: "SPAM" },
          { category: " spam " },
          { rule_ids: "1" },
          { rule_ids: [null] },
          { rule_ids: [{ id: rule1.id }] },
          { rule_ids: { "0": rule1.id }, category: "violation" },
          { rule_ids: [rule1.id, rule1.id], category: "violation" },
          { rule_ids: ["9".repeat(400)], category: "violation" },
          { category: "violation", rule_ids: [rule1.id], extra: { deep: [[[1]]] } },
        ];
        for (const body of bodies) {
          const res = await callJson(instance, mod, "PUT", path, body);
          assert.ok([200, 422].includes(res.status), `${JSON.stringify(body)}: ${res.status}`);
        }
        const [row] = await db.select().from(reports).where(eq(reports.id, r3));
        assert.equal(row.category, "violation");
        assert.deepEqual(row.ruleIds, [rule1.id], "duplicates cited once");
        const broken = await instance.request(path, {
          method: "PUT",
          headers: { Authorization: `Bearer ${mod.token}`, "Content-Type": "application/json" },
          body: '{"category": "spam",',
        });
        assert.ok(broken.status >= 400 && broken.status < 500, String(broken.status));
        await broken.body?.cancel();
        for (
          const query of [
            "?resolved[]=true",
            "?account_id[]=1",
            "?limit=-3",
            "?max_id=abc&min_id=%00",
            `?account_id=${"1".repeat(500)}`,
          ]
        ) {
          const res = await callJson(instance, mod, "GET", `/api/v1/admin/reports${query}`);
          assert.ok(res.status < 500, `${query}: ${res.status}`);
        }
        // Put r3 back as it was for the steps below.
        await ok(instance, mod, "PUT", path, { category: "spam", rule_ids: [] });
      },
    );

    await t.step("report list and resolve from the command line", async () => {
      const open = await cli(target, "report", "list");
      expectCode(open, 0);
      assert.match(open.stdout, /^ID\s+STATE\s+CATEGORY\s+TARGET\s+REPORTER\s+STATUSES/m);
      const lines = open.stdout.trim().split("\n").slice(1);
      assert.deepEqual(lines.map((l) => l.split(/\s+/)[0]), [r5, r4, r3, r2]);
      assert.match(lines[3], new RegExp(`^${r2}\\s+open\\s+other\\s+bob\\s+carol\\s+0\\s+`));
      assert.match(lines[3], /me too$/);

      const resolved = await cli(target, "report", "resolve", r5);
      expectCode(resolved, 0);
      assert.equal(resolved.stdout, `Resolved report ${r5} about @alice.\n`);
      const [row] = await db.select().from(reports).where(eq(reports.id, r5));
      assert.ok(row.actionTakenAt);
      assert.equal(row.actionTakenByAccountId, null);
      assert.deepEqual(await auditOf(r5), [["resolve", null]]);
      const api = await ok(instance, mod, "GET", `/api/v1/admin/reports/${r5}`);
      assert.equal(api.action_taken, true);
      assert.equal(api.action_taken_by_account, null);

      const json = await cli(target, "report", "list", "--resolved", "--json");
      expectCode(json, 0);
      const listed = JSON.parse(json.stdout);
      assert.deepEqual(listed.map((r: any) => r.id), [r5, r1]);
      assert.equal(listed[1].target, "bob");
      assert.equal(listed[1].reporter, "alice");
      assert.equal(listed[1].statuses, 3);
      assert.equal(listed[1].state, "resolved");

      const unknown = await cli(target, "report", "resolve", "12345");
      expectCode(unknown, 1);
      assert.match(unknown.stderr, /No report with id 12345/);
      const junk = await cli(target, "report", "resolve", "nope");
      expectCode(junk, 1);
      const badLimit = await cli(target, "report", "list", "--limit", "0");
      expectCode(badLimit, 2);
      assert.equal((await auditOf(r5)).length, 1);
    });

    await t.step("a page of reports costs the same statements for 1 report as for 6", async () => {
      // Six more open reports, each with its own reporter, target, status, rule and assignee.
      const people = [alice, bob, carol, mod, boss, owner];
      for (const [i, who] of people.entries()) {
        const about = people[(i + 1) % people.length];
        const post = await postStatus(instance, about, `evidence ${i}`);
        const id = await file(who, {
          account_id: about.id,
          status_ids: [post.id],
          rule_ids: [i % 2 ? rule1.id : rule2.id],
        });
        await ok(
          instance,
          [mod, boss, owner][i % 3],
          "POST",
          `/api/v1/admin/reports/${id}/assign_to_self`,
        );
      }
      const page = (limit: number) => async () => {
        const res = await callJson(instance, boss, "GET", `/api/v1/admin/reports?limit=${limit}`);
        assert.equal(res.status, 200);
        assert.equal(res.body.length, limit);
        assert.ok(res.body.every((r: any) => r.statuses.length === 1 && r.rules.length === 1));
        assert.ok(res.body.every((r: any) => r.assigned_account != null));
      };
      // Caches warm alike for both, then the same statements whatever the page holds.
      await page(6)();
      await page(1)();
      const one = await statementsDuring(page(1));
      const six = await statementsDuring(page(6));
      assert.ok(six <= one, `1 report: ${one} statements, 6 reports: ${six}`);
    });
  } finally {
    await instance.close({ destroy: true });
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
