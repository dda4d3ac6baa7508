/**
 * The admin accounts API on one instance, over HTTP: the role × endpoint
 * matrix (user, moderator, admin, owner; the admin scopes), v1 and v2 list
 * filters and paging, approve and reject, the action command (warnings,
 * reports resolved, e-mail, audit rows) and hostile ids and parameters.
 * What the actions do to readers: account_moderation_test.ts.
 */
import assert from "node:assert/strict";
import { count, eq } from "drizzle-orm";
import { accountWarnings, reports, webSessions } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { listAdminActions } from "../../actors/moderation/audit_log.ts";
import { test } from "../harness.ts";
import { call, callJson, links, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { mailFiles } from "../accounts/helpers.ts";
import { NOT_ALLOWED, startAdminFixture } from "./admin_fixture.ts";

test("admin accounts API", async (t) => {
  const f = await startAdminFixture();
  const { instance, db, get, post, accountRow, auditOf } = f;
  const { owner, admin, mod, mod2, modNoScope, plain, alice, bob, carol, dave, zed } = f;
  try {
    await t.step("role matrix and scopes", async () => {
      assert.equal((await get(null, "/api/v1/admin/accounts")).status, 401);
      for (const path of ["/api/v1/admin/accounts", "/api/v2/admin/accounts"]) {
        const res = await get(plain, path);
        assert.equal(res.status, 403, path);
        assert.deepEqual(res.body, NOT_ALLOWED);
      }
      assert.equal((await get(plain, `/api/v1/admin/accounts/${alice.id}`)).status, 403);
      for (
        const action of ["approve", "reject", "enable", "unsilence", "unsuspend", "unsensitive"]
      ) {
        const res = await post(plain, `/api/v1/admin/accounts/${alice.id}/${action}`);
        assert.equal(res.status, 403, action);
      }
      assert.equal(
        (await post(plain, `/api/v1/admin/accounts/${alice.id}/action`, { type: "silence" }))
          .status,
        403,
      );
      assert.equal(
        (await callJson(instance, plain, "DELETE", `/api/v1/admin/accounts/${alice.id}`)).status,
        403,
      );
      // A moderator whose token lacks the admin scope.
      assert.equal((await get(modNoScope, "/api/v1/admin/accounts")).status, 403);
      assert.equal((await accountRow(alice.id)).silencedAt, null, "nothing was done");

      // Moderators manage users, but not staff of their rank or above.
      assert.equal((await get(mod, "/api/v1/admin/accounts")).status, 200);
      assert.equal((await get(mod, `/api/v1/admin/accounts/${admin.id}`)).status, 200);
      for (const target of [admin, mod2, owner, mod]) {
        const res = await post(mod, `/api/v1/admin/accounts/${target.id}/action`, {
          type: "silence",
        });
        assert.equal(res.status, 403, target.username);
        assert.deepEqual(res.body, NOT_ALLOWED);
      }
      assert.equal(
        (await post(admin, `/api/v1/admin/accounts/${owner.id}/action`, {
          type: "silence",
        })).status,
        403,
      );
      assert.equal(
        (await post(admin, `/api/v1/admin/accounts/${mod2.id}/action`, {
          type: "silence",
          send_email_notification: false,
        })).status,
        200,
      );
      assert.equal((await post(owner, `/api/v1/admin/accounts/${mod2.id}/unsilence`)).status, 200);
      assert.equal((await accountRow(mod2.id)).silencedAt, null);
      assert.equal((await post(owner, `/api/v1/admin/accounts/${admin.id}/unsilence`)).status, 200);
    });

    await t.step("the entity and v1/v2 filters", async () => {
      await db.insert(webSessions).values({
        id: newId(),
        tokenHash: crypto.randomUUID(),
        userId: bob.userId,
        csrfToken: "x",
        ip: "192.0.2.7",
      });
      const one = await get(mod, `/api/v1/admin/accounts/${alice.id}`);
      assert.equal(one.status, 200);
      assert.equal(one.body.username, "alice");
      assert.equal(one.body.email, "alice@example.com");
      assert.equal(one.body.account.display_name, "Alice Liddell");
      assert.equal(one.body.role.permissions, "65536");
      for (const key of ["confirmed", "approved", "disabled", "silenced", "suspended"]) {
        assert.equal(typeof one.body[key], "boolean", key);
      }
      const ids = async (path: string) => {
        const res = await get(mod, path);
        assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
        return (res.body as { id: string }[]).map((a) => a.id);
      };
      // v1 lists active local accounts by default, as Mastodon.
      const local = await ids("/api/v1/admin/accounts");
      assert.ok(local.includes(alice.id) && !local.includes(zed));
      assert.deepEqual(await ids("/api/v1/admin/accounts?local=true"), local);
      assert.deepEqual(await ids("/api/v1/admin/accounts?remote=true"), [zed]);
      assert.deepEqual(await ids("/api/v1/admin/accounts?pending=true"), [carol.id]);
      assert.deepEqual(
        (await ids("/api/v1/admin/accounts?staff=true")).sort(),
        [owner.id, admin.id, mod.id, mod2.id, modNoScope.id].sort(),
      );
      assert.deepEqual(await ids("/api/v1/admin/accounts?username=ALI"), [alice.id]);
      assert.deepEqual(await ids("/api/v1/admin/accounts?display_name=alice%20l"), [alice.id]);
      assert.deepEqual(
        await ids("/api/v1/admin/accounts?remote=true&by_domain=Remote.Example"),
        [zed],
      );
      assert.deepEqual(await ids("/api/v1/admin/accounts?by_domain=remote.example"), []);
      assert.deepEqual(await ids("/api/v2/admin/accounts?by_domain=Remote.Example"), [zed]);
      assert.deepEqual(await ids("/api/v1/admin/accounts?email=bob%40"), [bob.id]);
      assert.deepEqual(await ids("/api/v1/admin/accounts?ip=192.0.2.0/24"), [bob.id]);
      assert.deepEqual(await ids("/api/v1/admin/accounts?ip=192.0.2.7"), [bob.id]);
      assert.deepEqual(await ids("/api/v1/admin/accounts?ip=not-an-ip"), []);
      assert.deepEqual(await ids("/api/v1/admin/accounts?username=%25"), [], "LIKE is literal");
      assert.deepEqual(await ids("/api/v2/admin/accounts?origin=remote"), [zed]);
      assert.deepEqual(await ids("/api/v2/admin/accounts?status=pending"), [carol.id]);
      assert.deepEqual(
        (await ids("/api/v2/admin/accounts?role_ids[]=1")).sort(),
        [mod.id, mod2.id, modNoScope.id].sort(),
      );
      assert.deepEqual(
        await ids("/api/v2/admin/accounts?permissions=staff&role_ids[]=3"),
        [owner.id],
      );
      assert.deepEqual(await ids("/api/v2/admin/accounts?invited_by=1"), []);
      assert.deepEqual(await ids("/api/v2/admin/accounts?origin=local&username=zed"), []);
      for (const bad of ["origin=elsewhere", "status=happy", "permissions=all"]) {
        const res = await get(mod, `/api/v2/admin/accounts?${bad}`);
        assert.equal(res.status, 400, bad);
        assert.equal(typeof res.body.error, "string");
      }
      // Paging: newest first, Link headers to walk on.
      const all = await ids("/api/v2/admin/accounts");
      assert.deepEqual(all, [...all].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1)));
      const first = await get(mod, "/api/v2/admin/accounts?limit=2");
      assert.deepEqual(first.body.map((a: { id: string }) => a.id), all.slice(0, 2));
      const next = links(first.headers.get("Link")).next;
      assert.equal(next.searchParams.get("max_id"), all[1]);
      const second = await get(mod, next.pathname + next.search);
      assert.deepEqual(second.body.map((a: { id: string }) => a.id), all.slice(2, 4));
      const prev = links(second.headers.get("Link")).prev;
      const back = await get(mod, prev.pathname + prev.search);
      assert.deepEqual(back.body.map((a: { id: string }) => a.id), all.slice(0, 2));
      assert.equal((await get(mod, "/api/v1/admin/accounts?limit=99999")).status, 200);
    });

    await t.step("approve and reject", async () => {
      const approved = await post(mod, `/api/v1/admin/accounts/${carol.id}/approve/`);
      assert.equal(approved.status, 200);
      assert.equal(approved.body.approved, true);
      assert.equal((await auditOf(carol.userId, "approve")).length, 1);
      const again = await post(mod, `/api/v1/admin/accounts/${carol.id}/approve`);
      assert.equal(again.status, 422);
      assert.equal(typeof again.body.error, "string");
      assert.equal((await post(mod, `/api/v1/admin/accounts/${alice.id}/reject`)).status, 422);
      assert.equal((await post(mod, `/api/v1/admin/accounts/${zed}/approve`)).status, 403);
      assert.equal((await post(mod, `/api/v1/admin/accounts/${zed}/reject`)).status, 403);

      const erin = await createUser(instance, "erin", { approved: false });
      const rejected = await post(mod, `/api/v1/admin/accounts/${erin.id}/reject`);
      assert.equal(rejected.status, 200);
      assert.equal(rejected.body.username, "erin");
      assert.equal(await accountRow(erin.id), undefined, "the pending account is deleted");
      assert.equal((await get(mod, `/api/v1/admin/accounts/${erin.id}`)).status, 404);
      const [log] = await auditOf(erin.userId, "reject");
      assert.equal(log.accountId, mod.id);
      assert.equal(log.humanIdentifier, "erin");
      // The name is free again.
      await createUser(instance, "erin");
    });

    await t.step("action: warning, report resolved, e-mail; refusals write nothing", async () => {
      const status = await postStatus(instance, dave, "something rude");
      const filed = await post(bob, "/api/v1/reports", {
        account_id: dave.id,
        status_ids: [status.id],
        comment: "rude",
      });
      assert.equal(filed.status, 200);
      const other = await post(alice, "/api/v1/reports", { account_id: dave.id, comment: "also" });
      assert.equal(other.status, 200);
      const warningsBefore = (await db.select({ n: count() }).from(accountWarnings))[0].n;
      const mailsBefore = (await mailFiles(instance)).length;
      const refusals: [Record<string, unknown>, number][] = [
        [{ type: "obliterate" }, 422],
        [{}, 422],
        [{ type: { nested: true } }, 422],
        [{ type: "silence", text: "x".repeat(5_001) }, 422],
        [{ type: "silence", report_id: "999999" }, 404],
        [{ type: "silence", report_id: "../1" }, 404],
        [{ type: "silence", warning_preset_id: "1" }, 404],
      ];
      for (const [body, code] of refusals) {
        const res = await post(mod, `/api/v1/admin/accounts/${dave.id}/action`, body);
        assert.equal(res.status, code, JSON.stringify(body).slice(0, 80));
        assert.equal(typeof res.body.error, "string");
      }
      assert.equal((await accountRow(dave.id)).silencedAt, null);
      assert.equal((await db.select({ n: count() }).from(accountWarnings))[0].n, warningsBefore);
      assert.equal(
        (await post(mod, "/api/v1/admin/accounts/1234/action", { type: "none" })).status,
        404,
      );
      assert.equal(
        (await post(mod, `/api/v1/admin/accounts/${zed}/action`, { type: "disable" })).status,
        422,
      );

      const res = await post(mod, `/api/v1/admin/accounts/${dave.id}/action`, {
        type: "silence",
        report_id: filed.body.id,
        text: "Be nice to people.",
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {});
      assert.equal((await get(mod, `/api/v1/admin/accounts/${dave.id}`)).body.silenced, true);
      const [report] = await db.select().from(reports).where(eq(reports.id, filed.body.id));
      assert.ok(report.actionTakenAt, "the report is resolved");
      assert.equal(report.actionTakenByAccountId, mod.id);
      const [second] = await db.select().from(reports).where(eq(reports.id, other.body.id));
      assert.ok(second.actionTakenAt, "a real action resolves every open report on the account");
      assert.equal((await auditOf(other.body.id, "resolve")).length, 1);
      const [warning] = await db.select().from(accountWarnings)
        .where(eq(accountWarnings.targetAccountId, dave.id));
      assert.equal(warning.action, "silence");
      assert.equal(warning.text, "Be nice to people.");
      assert.equal(warning.reportId, filed.body.id);
      assert.deepEqual(warning.statusIds, [status.id]);
      assert.equal((await auditOf(dave.id, "silence")).length, 1);
      assert.equal((await auditOf(filed.body.id, "resolve")).length, 1);
      const mails = await mailFiles(instance);
      assert.equal(mails.length, mailsBefore + 1);
      assert.match(mails.at(-1)!, /To: dave@example\.com/);
      assert.match(mails.at(-1)!, /Be nice to people\./);

      // none: a warning alone, audited; no e-mail when asked not to.
      const none = await post(mod, `/api/v1/admin/accounts/${alice.id}/action`, {
        type: "none",
        text: "A gentle reminder",
        send_email_notification: "false",
      });
      assert.equal(none.status, 200);
      assert.equal((await mailFiles(instance)).length, mailsBefore + 1);
      const [noneWarning] = await db.select().from(accountWarnings)
        .where(eq(accountWarnings.targetAccountId, alice.id));
      assert.equal(noneWarning.action, "none");
      assert.equal((await auditOf(noneWarning.id, "create")).length, 1);
    });

    await t.step("hostile ids and parameters", async () => {
      const ivyId = (await createUser(instance, "quinn")).id;
      for (const id of ["abc", "99999999", "1e5", "-1", "9".repeat(30)]) {
        assert.equal((await get(mod, `/api/v1/admin/accounts/${id}`)).status, 404, id);
        assert.equal(
          (await post(mod, `/api/v1/admin/accounts/${id}/action`, { type: "none" })).status,
          404,
          id,
        );
      }
      const long = await get(mod, `/api/v1/admin/accounts?username=${"a".repeat(400)}`);
      assert.equal(long.status, 422);
      const res = await call(
        instance,
        mod,
        "POST",
        `/api/v1/admin/accounts/${bob.id}/action`,
        undefined,
        {
          "Content-Type": "application/json",
        },
      );
      assert.ok(res.status < 500);
      await res.body?.cancel();
      const weird = await get(mod, "/api/v2/admin/accounts?role_ids[a]=1&ip=::1/999");
      assert.ok(weird.status < 500, String(weird.status));
      // Every write route with odd values in every field it reads: never a 5xx.
      const odd: unknown[] = [
        null,
        true,
        0,
        -1,
        1e308,
        "",
        " ",
        "0",
        "none",
        "suspend",
        "x".repeat(10_000),
        ["silence"],
        { type: "silence" },
        "\u0000",
        "9".repeat(25),
        "1e3",
        "../../etc",
      ];
      const fields = ["type", "report_id", "warning_preset_id", "text", "send_email_notification"];
      const routes = [
        "action",
        "approve",
        "reject",
        "enable",
        "unsilence",
        "unsuspend",
        "unsensitive",
      ];
      let sent = 0;
      for (const route of routes) {
        for (const value of odd) {
          const field = fields[sent % fields.length];
          const body = JSON.stringify({ [field]: value, type: sent % 3 ? value : "none" });
          const res = await instance.request(`/api/v1/admin/accounts/${ivyId}/${route}`, {
            method: "POST",
            headers: { Authorization: `Bearer ${mod.token}`, "Content-Type": "application/json" },
            body,
          });
          assert.ok(res.status < 500, `${route} ${body.slice(0, 60)}: ${res.status}`);
          await res.body?.cancel();
          sent++;
        }
      }
      const logs = await listAdminActions(db, { limit: 1000 });
      assert.ok(logs.length > 10);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
