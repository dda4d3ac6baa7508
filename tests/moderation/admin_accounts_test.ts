/**
 * The admin accounts API on one instance, over HTTP: the role × endpoint
 * matrix (user, moderator, admin, owner; the admin scopes), v1 and v2 list
 * filters and paging, approve and reject, the action command (warnings,
 * reports resolved, e-mail), enable/unsilence/unsensitive/unsuspend,
 * DELETE, what silence, sensitive and suspension do to readers (timelines,
 * notifications, statuses, ActivityPub documents, tokens), remote
 * suspension, the grace-period purge, the admin command line, audit rows
 * and hostile input.
 */
import assert from "node:assert/strict";
import { and, count, eq } from "drizzle-orm";
import {
  accounts,
  accountWarnings,
  adminActionLogs,
  follows,
  reports,
  statuses,
  users,
  webSessions,
} from "../../db/schema.ts";
import { newId } from "../../db/ids.ts";
import { listAdminActions } from "../../actors/audit_log.ts";
import { purgeExpiredSuspensions } from "../../actors/moderation/suspension.ts";
import { runAdminCommand } from "../../admin/commands.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { call, callJson, links, postStatus } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";
import { mailFiles } from "../accounts/helpers.ts";
import { eventually } from "../fixtures/wait.ts";
import { form, image, upload } from "../media/helpers.ts";

const STAFF_SCOPES = ["read", "write", "follow", "admin:read", "admin:write"];
const NOT_ALLOWED = { error: "This action is not allowed" };

async function staff(instance: TestInstance, name: string, role: string): Promise<TestUser> {
  const user = await createUser(instance, name, { scopes: STAFF_SCOPES });
  await instance.rookery.ctx.database.db.update(users).set({ role })
    .where(eq(users.id, user.userId));
  return user;
}

test("admin accounts API", async (t) => {
  const instance = await startInstance();
  const db = instance.rookery.ctx.database.db;
  const ctx = instance.rookery.ctx;
  const get = (who: TestUser | null, path: string) => callJson(instance, who, "GET", path);
  const post = (who: TestUser | null, path: string, body?: Record<string, unknown>) =>
    callJson(instance, who, "POST", path, body);
  const accountRow = async (id: string) =>
    (await db.select().from(accounts).where(eq(accounts.id, id)))[0];
  const auditOf = (id: string, action: string) =>
    db.select().from(adminActionLogs).where(
      and(eq(adminActionLogs.targetId, id), eq(adminActionLogs.action, action)),
    );
  try {
    const owner = await staff(instance, "olga", "owner");
    const admin = await staff(instance, "adam", "admin");
    const mod = await staff(instance, "mona", "moderator");
    const mod2 = await staff(instance, "milo", "moderator");
    const modNoScope = await createUser(instance, "mads");
    await db.update(users).set({ role: "moderator" }).where(eq(users.id, modNoScope.userId));
    const plain = await staff(instance, "pat", "user");
    const alice = await createUser(instance, "alice", {
      account: { displayName: "Alice Liddell" },
    });
    const bob = await createUser(instance, "bob");
    const carol = await createUser(instance, "carol", { approved: false });
    const dave = await createUser(instance, "dave");
    const zed = await insertRemoteAccount(instance, "zed", "remote.example", {
      inboxUrl: "https://remote.example/users/zed/inbox",
    });

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

    await t.step("silence: out of public timelines and strangers' notifications", async () => {
      // alice follows dave (silenced above); bob does not.
      assert.equal((await post(alice, `/api/v1/accounts/${dave.id}/follow`)).status, 200);
      const status = await postStatus(instance, dave, "limited post #limitedtag @bob @alice");
      const inPublic = async (who: TestUser | null, path = "/api/v1/timelines/public") => {
        const res = await get(who, path);
        assert.equal(res.status, 200);
        return res.body.some((s: { id: string }) => s.id === status.id);
      };
      assert.equal(await inPublic(null), false);
      assert.equal(await inPublic(bob), false);
      assert.equal(await inPublic(bob, "/api/v1/timelines/tag/limitedtag"), false);
      assert.equal(await inPublic(alice), true, "followers still see it");
      assert.equal(await inPublic(dave), true, "and the author");
      assert.equal((await get(bob, `/api/v1/statuses/${status.id}`)).status, 200, "not hidden");
      // Mentions: the follower is notified, the stranger's is held back.
      await eventually("alice's mention", async () => {
        const res = await get(alice, "/api/v1/notifications?types[]=mention");
        return res.body.some((n: { status?: { id: string } }) => n.status?.id === status.id);
      });
      const bobs = await get(bob, "/api/v1/notifications?types[]=mention");
      assert.equal(
        bobs.body.some((n: { status?: { id: string } }) => n.status?.id === status.id),
        false,
      );
      const requests = await get(bob, "/api/v1/notifications/requests");
      assert.ok(requests.body.some((r: { account: { id: string } }) => r.account.id === dave.id));
      // Account search: bob does not find dave by a prefix, but by the exact handle.
      const prefix = await get(bob, "/api/v2/search?type=accounts&q=dav");
      assert.equal(prefix.body.accounts.some((a: { id: string }) => a.id === dave.id), false);

      assert.equal((await post(mod, `/api/v1/admin/accounts/${dave.id}/unsilence`)).status, 200);
      assert.equal(await inPublic(bob), true);
      assert.equal((await auditOf(dave.id, "unsilence")).length, 1);
    });

    await t.step("sensitive: statuses shown sensitive to others", async () => {
      const status = await postStatus(instance, bob, "an ordinary post");
      assert.equal((await get(alice, `/api/v1/statuses/${status.id}`)).body.sensitive, false);
      const res = await post(mod, `/api/v1/admin/accounts/${bob.id}/action`, {
        type: "sensitive",
        send_email_notification: false,
      });
      assert.equal(res.status, 200);
      assert.equal((await get(alice, `/api/v1/statuses/${status.id}`)).body.sensitive, true);
      assert.equal((await get(null, `/api/v1/statuses/${status.id}`)).body.sensitive, true);
      assert.equal((await get(bob, `/api/v1/statuses/${status.id}`)).body.sensitive, false);
      assert.equal((await get(mod, `/api/v1/admin/accounts/${bob.id}`)).body.sensitized, true);
      assert.equal((await post(mod, `/api/v1/admin/accounts/${bob.id}/unsensitive`)).status, 200);
      assert.equal((await get(alice, `/api/v1/statuses/${status.id}`)).body.sensitive, false);
      assert.equal((await auditOf(bob.id, "sensitive")).length, 1);
      assert.equal((await auditOf(bob.id, "unsensitive")).length, 1);
    });

    await t.step("disable and enable", async () => {
      assert.equal((await get(alice, "/api/v1/accounts/verify_credentials")).status, 200);
      const res = await post(mod, `/api/v1/admin/accounts/${alice.id}/action`, {
        type: "disable",
        send_email_notification: false,
      });
      assert.equal(res.status, 200);
      assert.equal((await get(mod, `/api/v1/admin/accounts/${alice.id}`)).body.disabled, true);
      assert.equal((await get(alice, "/api/v1/accounts/verify_credentials")).status, 403);
      const enabled = await post(mod, `/api/v1/admin/accounts/${alice.id}/enable`);
      assert.equal(enabled.status, 200);
      assert.equal(enabled.body.disabled, false);
      assert.equal((await get(alice, "/api/v1/accounts/verify_credentials")).status, 200);
      assert.equal((await post(mod, `/api/v1/admin/accounts/${zed}/enable`)).status, 403);
      assert.equal((await auditOf(alice.userId, "disable")).length, 1);
      assert.equal((await auditOf(alice.userId, "enable")).length, 1);
    });

    await t.step("suspend a local account: hidden at once, restored by unsuspend", async () => {
      const frank = await createUser(instance, "frank");
      const uploaded = await upload(
        instance,
        frank.token,
        form({ bytes: await image("png", 40, 30), type: "image/png" }),
      );
      assert.equal(uploaded.status, 200);
      const media = await uploaded.json();
      const file = () =>
        instance.request(media.url).then(async (r) => {
          await r.body?.cancel();
          return r.status;
        });
      assert.equal(await file(), 200);
      const status = await postStatus(instance, frank, {
        status: "before the fall",
        media_ids: [media.id],
      });
      assert.equal((await post(alice, `/api/v1/accounts/${frank.id}/follow`)).status, 200);
      const res = await post(mod, `/api/v1/admin/accounts/${frank.id}/action`, {
        type: "suspend",
        send_email_notification: false,
      });
      assert.equal(res.status, 200);
      const entity = (await get(mod, `/api/v1/admin/accounts/${frank.id}`)).body;
      assert.equal(entity.suspended, true);
      assert.equal(entity.account.suspended, true);
      assert.equal((await get(alice, `/api/v1/statuses/${status.id}`)).status, 404);
      assert.equal((await get(null, `/api/v1/statuses/${status.id}`)).status, 404);
      const profile = await get(alice, `/api/v1/accounts/${frank.id}`);
      assert.equal(profile.body.suspended, true);
      assert.equal((await get(frank, "/api/v1/accounts/verify_credentials")).status, 401);
      // ActivityPub: the actor says it is suspended and shows nothing else.
      const ap = { headers: { Accept: "application/activity+json" } };
      const actor = await instance.request("/users/frank", ap);
      assert.equal(actor.status, 200);
      const doc = await actor.json();
      assert.equal(doc.suspended, true);
      assert.equal(doc.name ?? null, null);
      assert.equal((await instance.request("/users/frank/outbox", ap)).status, 404);
      await (await instance.request("/users/frank/followers", ap)).body?.cancel();
      const object = await instance.request(new URL(status.uri).pathname, ap);
      assert.ok([404, 410].includes(object.status), `status object: ${object.status}`);
      await object.body?.cancel();
      assert.equal((await auditOf(frank.id, "suspend")).length, 1);
      assert.equal(await file(), 404, "its media files are not served");
      // Follows are kept for unsuspend.
      const kept = await db.select().from(follows).where(eq(follows.targetAccountId, frank.id));
      assert.equal(kept.length, 1);

      const back = await post(mod, `/api/v1/admin/accounts/${frank.id}/unsuspend`);
      assert.equal(back.status, 200);
      assert.equal(back.body.suspended, false);
      assert.equal((await get(alice, `/api/v1/statuses/${status.id}`)).status, 200);
      assert.equal((await instance.request("/users/frank/outbox", ap)).status, 200);
      assert.equal((await auditOf(frank.id, "unsuspend")).length, 1);
      assert.equal(await file(), 200);
      // Not suspended: nothing to lift.
      assert.equal((await post(mod, `/api/v1/admin/accounts/${frank.id}/unsuspend`)).status, 403);
    });

    await t.step("DELETE purges only a suspended account, and needs delete_user_data", async () => {
      const gus = await createUser(instance, "gus");
      const status = await postStatus(instance, gus, "soon gone");
      const del = (who: TestUser) =>
        callJson(instance, who, "DELETE", `/api/v1/admin/accounts/${gus.id}`);
      assert.equal((await del(admin)).status, 403, "not suspended");
      await post(mod, `/api/v1/admin/accounts/${gus.id}/action`, {
        type: "suspend",
        send_email_notification: false,
      });
      assert.equal((await del(mod)).status, 403, "moderators may not delete data");
      const gone = await del(admin);
      assert.equal(gone.status, 200);
      assert.equal(gone.body.suspended, true);
      const row = await accountRow(gus.id);
      assert.ok(row.deletedAt);
      const [s] = await db.select().from(statuses).where(eq(statuses.id, status.id));
      assert.ok(s.deletedAt);
      assert.equal((await db.select().from(users).where(eq(users.id, gus.userId))).length, 0);
      assert.equal((await auditOf(gus.id, "destroy")).length, 1);
      const actor = await instance.request("/users/gus", {
        headers: { Accept: "application/activity+json" },
      });
      assert.equal(actor.status, 410);
      await actor.body?.cancel();
      assert.equal((await del(admin)).status, 404, "already purged");
      assert.equal((await post(admin, `/api/v1/admin/accounts/${gus.id}/unsuspend`)).status, 404);
    });

    await t.step("suspend a remote account: its follows of ours end", async () => {
      await db.insert(follows).values({ id: newId(), accountId: zed, targetAccountId: bob.id });
      await db.update(accounts).set({ followersCount: 1 }).where(eq(accounts.id, bob.id));
      const res = await post(mod, `/api/v1/admin/accounts/${zed}/action`, { type: "suspend" });
      assert.equal(res.status, 200);
      assert.equal((await db.select().from(follows).where(eq(follows.accountId, zed))).length, 0);
      assert.equal((await accountRow(bob.id)).followersCount, 0);
      assert.equal((await accountRow(zed)).suspensionOrigin, "local");
      assert.equal((await post(mod, `/api/v1/admin/accounts/${zed}/unsuspend`)).status, 200);
      // What its own server suspended, only its own server lifts.
      await db.update(accounts).set({ suspendedAt: new Date(), suspensionOrigin: "remote" })
        .where(eq(accounts.id, zed));
      assert.equal((await post(mod, `/api/v1/admin/accounts/${zed}/unsuspend`)).status, 403);
      assert.equal(
        (await callJson(instance, admin, "DELETE", `/api/v1/admin/accounts/${zed}`)).status,
        403,
      );
      await db.update(accounts).set({ suspendedAt: null, suspensionOrigin: null })
        .where(eq(accounts.id, zed));
    });

    await t.step("the grace period: the worker's purge", async () => {
      const hal = await createUser(instance, "hal");
      const ivy = await createUser(instance, "ivy");
      for (const who of [hal, ivy]) {
        await post(admin, `/api/v1/admin/accounts/${who.id}/action`, {
          type: "suspend",
          send_email_notification: false,
        });
      }
      await db.update(accounts).set({ suspendedAt: new Date(Date.now() - 31 * 86_400_000) })
        .where(eq(accounts.id, hal.id));
      assert.equal(await purgeExpiredSuspensions(db, 30), 1);
      assert.ok((await accountRow(hal.id)).deletedAt, "past the grace period: purged");
      assert.equal((await accountRow(ivy.id)).deletedAt, null, "within it: kept");
      assert.equal(await purgeExpiredSuspensions(db, 30), 0);
    });

    await t.step("admin command line: suspend, unsuspend, silence, unsilence", async () => {
      const env = { db, config: ctx.config };
      const silenced = await runAdminCommand(env, ["account", "silence", "alice"]);
      assert.equal(silenced.exitCode, 0, silenced.stderr);
      assert.ok((await accountRow(alice.id)).silencedAt);
      const [log] = await auditOf(alice.id, "silence");
      assert.equal(log.accountId, null, "the operator has no account");
      assert.equal((await runAdminCommand(env, ["account", "unsilence", "@Alice"])).exitCode, 0);
      assert.equal((await accountRow(alice.id)).silencedAt, null);
      const remote = await runAdminCommand(env, ["account", "suspend", "zed@REMOTE.example"]);
      assert.equal(remote.exitCode, 0, remote.stderr);
      assert.ok((await accountRow(zed)).suspendedAt);
      assert.equal(
        (await runAdminCommand(env, ["account", "unsuspend", "zed@remote.example"]))
          .exitCode,
        0,
      );
      assert.equal((await accountRow(zed)).suspendedAt, null);
      const again = await runAdminCommand(env, ["account", "unsuspend", "zed@remote.example"]);
      assert.equal(again.exitCode, 1);
      assert.match(again.stderr, /not suspended/);
      const missing = await runAdminCommand(env, ["account", "suspend", "nobody\u0007"]);
      assert.equal(missing.exitCode, 1);
      assert.equal(missing.stderr.includes("\u0007"), false);
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
