/**
 * The staff account pages. In headless Chromium: a moderator follows the
 * dashboard's link to the pending sign-ups and approves one (who can then
 * sign in), and suspends an account with a warning (the admin API shows it
 * suspended, the audit log has the row, the report about it is resolved).
 * Over plain HTTP: who may see and post, forged and tokenless posts, unknown
 * ids, the role refusal, invalid input, the filters, reject and delete.
 */
import assert from "node:assert/strict";
import { and, count, eq } from "drizzle-orm";
import { accounts, accountWarnings, adminActionLogs, reports, users } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { browserTest, signInWithForm } from "../fixtures/browser.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";
import { mailFiles } from "../accounts/helpers.ts";
import { includes, signInOverHttp } from "./http_session.ts";

const ADMIN_SCOPES = ["read", "write", "admin:read", "admin:write"];
const instance = await startInstance({ listen: true });
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;
async function withRole(name: string, role: string) {
  const user = await createUser(instance, name, { scopes: ADMIN_SCOPES });
  await db.update(users).set({ role }).where(eq(users.id, user.userId));
  return user;
}
const adam = await withRole("adam", "admin");
const mona = await withRole("mona", "moderator");
const milo = await withRole("milo", "moderator");
const pat = await createUser(instance, "pat");
const bob = await createUser(instance, "bob", { account: { displayName: "Bobby Tables" } });
const carol = await createUser(instance, "carol", { approved: false });
await db.update(users).set({ reason: "I knit <b>socks</b>" }).where(eq(users.id, carol.userId));
const zed = await insertRemoteAccount(instance, "zed", "remote.example", {
  publicKeys: [
    { id: "https://remote.example/users/zed#main-key", type: "rsa", in: "publicKey" },
    { id: "https://remote.example/users/zed#ed25519-key", type: "ed25519", in: "assertionMethod" },
  ],
});
const reportId = newId();
await db.insert(reports).values({
  id: reportId,
  accountId: pat.id,
  targetAccountId: bob.id,
  comment: "spams the local timeline",
  category: "spam",
});

const accountRow = async (id: string) =>
  (await db.select().from(accounts).where(eq(accounts.id, id)))[0];
const auditRows = (targetId: string, action: string) =>
  db.select().from(adminActionLogs).where(
    and(eq(adminActionLogs.targetId, targetId), eq(adminActionLogs.action, action)),
  );

browserTest("a moderator approves a pending sign-up from the dashboard's link", async (browser) => {
  // Pending: carol cannot sign in yet.
  await assert.rejects(signInOverHttp(instance, "carol", "/"));
  const page = await browser.newPage();
  await page.goto(`${instance.origin}/auth/sign_in?redirect_to=/admin`);
  await signInWithForm(page, "mona", TEST_PASSWORD);
  await Promise.all([
    page.waitForNavigation(),
    page.click('a[href="/admin/accounts?status=pending"]'),
  ]);
  assert.equal(await page.textContent("h1"), "Accounts");
  const rows = await page.$$eval(
    "table.accounts tbody tr",
    (trs) => trs.map((tr) => tr.textContent),
  );
  assert.equal(rows.length, 1, JSON.stringify(rows));
  includes(rows[0]!, "@carol");
  includes(rows[0]!, "Pending");
  await Promise.all([page.waitForNavigation(), page.click("table.accounts a")]);
  assert.equal(await page.textContent("h1"), "@carol");
  // The reason, escaped, not markup.
  assert.equal((await page.textContent("[data-fact=reason] td"))!.trim(), "I knit <b>socks</b>");
  assert.equal(await page.$("[data-fact=reason] b"), null);
  includes((await page.textContent("[data-fact=email] td"))!, "carol@example.com");
  await Promise.all([page.waitForNavigation(), page.click("button:has-text('Approve')")]);
  assert.equal(new URL(page.url()).pathname, `/admin/accounts/${carol.id}`);
  includes((await page.textContent("[role=status]"))!, "approved");
  assert.equal((await page.textContent("[data-fact=state] td"))!.trim(), "Active");
  assert.equal((await auditRows(carol.userId, "approve")).length, 1);
  // Approved: carol signs in.
  const session = await signInOverHttp(instance, "carol", "/");
  assert.ok(session.cookie);
  // No one is pending any more.
  await page.goto(`${instance.origin}/admin/accounts?status=pending`);
  includes((await page.textContent("main"))!, "No account matches");
});

browserTest("a moderator suspends an account with a warning", async (browser) => {
  const page = await browser.newPage();
  await page.goto(`${instance.origin}/auth/sign_in?redirect_to=/admin/accounts`);
  await signInWithForm(page, "mona", TEST_PASSWORD);
  // Found by the username search.
  await page.fill("#filter-username", "bo");
  await Promise.all([page.waitForNavigation(), page.click("form[role=search] button")]);
  assert.match(page.url(), /username=bo/);
  const handles = await page.$$eval("table.accounts tbody a", (as) => as.map((a) => a.textContent));
  assert.deepEqual(handles, ["@bob"]);
  await Promise.all([page.waitForNavigation(), page.click("table.accounts a")]);
  // The open report about bob, linked to its page.
  const report = await page.$(`tr[data-report="${reportId}"]`);
  assert.ok(report);
  assert.equal(
    await report!.$eval("a", (a) => a.getAttribute("href")),
    `/admin/reports/${reportId}`,
  );
  includes((await report!.textContent())!, "Open");
  await page.selectOption("#action-type", "suspend");
  await page.fill("#action-text", "Spam is not welcome here.");
  await page.uncheck("input[name=send_email_notification]");
  await Promise.all([page.waitForNavigation(), page.click(".action-form button[type=submit]")]);
  includes((await page.textContent("[role=status]"))!, "action was taken");
  includes((await page.textContent("[data-fact=state] td"))!, "Suspended");
  includes((await page.textContent("table.warnings"))!, "Spam is not welcome here.");
  includes((await page.textContent(`tr[data-report="${reportId}"]`))!, "Resolved");
  // A moderator cannot delete data (an admin's permission): no such form.
  assert.equal(await page.$(".delete-form"), null);
  assert.ok(await page.$("button:has-text('Undo suspension')"));

  // What the admin API sees, and the audit log.
  const api = await callJson(instance, adam, "GET", `/api/v1/admin/accounts/${bob.id}`);
  assert.equal(api.status, 200);
  assert.equal(api.body.suspended, true);
  const audit = await auditRows(bob.id, "suspend");
  assert.equal(audit.length, 1);
  assert.equal(audit[0].accountId, mona.id);
  const [warning] = await db.select().from(accountWarnings)
    .where(eq(accountWarnings.targetAccountId, bob.id));
  assert.equal(warning.action, "suspend");
  assert.equal(warning.accountId, mona.id);
});

test("staff account pages over HTTP", async (t) => {
  const modPages = await signInOverHttp(instance, "mona");
  const adminPages = await signInOverHttp(instance, "adam");
  const page = async (res: Response) => ({ status: res.status, html: await res.text() });

  await t.step("not staff, no session, no token: 403", async () => {
    const patPages = await signInOverHttp(instance, "pat", "/");
    for (const path of ["/admin/accounts", `/admin/accounts/${zed}`]) {
      const res = await patPages.get(path);
      assert.equal(res.status, 403, path);
      await res.body?.cancel();
    }
    // Even with the session's own token, a user's post does nothing.
    const post = await patPages.post(`/admin/accounts/${zed}/action`, { type: "silence" });
    assert.equal(post.status, 403);
    await post.body?.cancel();
    const stranger = await instance.request(`/admin/accounts/${zed}/action`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "type=silence",
    });
    assert.equal(stranger.status, 403);
    await stranger.body?.cancel();
    // A moderator's post without the token, or with another one.
    for (const body of ["type=silence", "type=silence&authenticity_token=forged"]) {
      const res = await instance.request(`/admin/accounts/${zed}/action`, {
        method: "POST",
        headers: { cookie: modPages.cookie, "content-type": "application/x-www-form-urlencoded" },
        body,
      });
      assert.equal(res.status, 403, body);
      await res.body?.cancel();
    }
    assert.equal((await accountRow(zed)).silencedAt, null, "nothing was done");
  });

  await t.step("unknown and malformed ids: 404 inside the layout", async () => {
    for (const id of ["999999", "abc", "99999999999999999999999", "1%27%20OR%201=1"]) {
      const res = await page(await modPages.get(`/admin/accounts/${id}`));
      assert.equal(res.status, 404, id);
      includes(res.html, "<h1>Not found</h1>");
      includes(res.html, 'aria-label="Administration"');
      for (const action of ["approve", "enable", "unsilence", "action"]) {
        const post = await modPages.post(`/admin/accounts/${id}/${action}`, { type: "none" });
        assert.equal(post.status, 404, `${id} ${action}`);
        await post.body?.cancel();
      }
    }
  });

  await t.step("a moderator acting on staff of their rank or above: 403", async () => {
    for (const target of [adam, milo]) {
      const res = await page(
        await modPages.post(`/admin/accounts/${target.id}/action`, { type: "silence" }),
      );
      assert.equal(res.status, 403, target.username);
      includes(res.html, "This action is not allowed");
      assert.equal((await accountRow(target.id)).silencedAt, null);
      // And the page offers no action on them.
      const shown = await page(await modPages.get(`/admin/accounts/${target.id}`));
      includes(shown.html, "Your role does not allow acting on this account");
    }
    // Deleting data needs delete_user_data: refused for a moderator.
    const del = await page(
      await modPages.post(`/admin/accounts/${bob.id}/delete`, { confirm: "true" }),
    );
    assert.equal(del.status, 403);
    assert.equal((await accountRow(bob.id)).deletedAt, null);
  });

  await t.step("invalid action input: 422 with the reason, nothing written", async () => {
    const warnings = async () =>
      (await db.select({ n: count() }).from(accountWarnings)
        .where(eq(accountWarnings.targetAccountId, zed)))[0].n;
    const before = await warnings();
    const bad = await page(await modPages.post(`/admin/accounts/${zed}/action`, { type: "nuke" }));
    assert.equal(bad.status, 422);
    includes(bad.html, 'class="alert"');
    includes(bad.html, "Type is not one of");
    const long = await page(
      await modPages.post(`/admin/accounts/${zed}/action`, {
        type: "silence",
        text: "x".repeat(5_001),
      }),
    );
    assert.equal(long.status, 422);
    includes(long.html, "too long");
    // The form keeps what was chosen.
    includes(long.html, '<option value="silence" selected>');
    assert.equal(await warnings(), before);
    assert.equal((await accountRow(zed)).silencedAt, null);
    // An unknown report id: 404, as the API.
    const noReport = await modPages.post(`/admin/accounts/${zed}/action`, {
      type: "silence",
      report_id: "12345",
    });
    assert.equal(noReport.status, 404);
    await noReport.body?.cancel();
  });

  await t.step("a warning by e-mail only when the box is ticked", async () => {
    const toPat = async () =>
      (await mailFiles(instance)).filter((m) => m.includes("pat@example.com")).length;
    const before = await toPat();
    // Unticked: the box is absent from the form.
    const quiet = await modPages.post(`/admin/accounts/${pat.id}/action`, {
      type: "none",
      text: "First warning",
    });
    assert.equal(quiet.status, 303);
    assert.equal(await toPat(), before);
    const told = await modPages.post(`/admin/accounts/${pat.id}/action`, {
      type: "none",
      text: "Second warning",
      send_email_notification: "true",
    });
    assert.equal(told.status, 303);
    assert.equal(await toPat(), before + 1);
    const shown = await page(await modPages.get(`/admin/accounts/${pat.id}`));
    includes(shown.html, "First warning");
    includes(shown.html, "Second warning");
  });

  await t.step("a remote account's page lists its keys", async () => {
    const { html } = await page(await modPages.get(`/admin/accounts/${zed}`));
    includes(html, "https://remote.example/users/zed#main-key</code> (RSA, in");
    includes(html, "https://remote.example/users/zed#ed25519-key</code> (ED25519, in");
  });

  await t.step("limit a remote account, then lift it", async () => {
    const res = await modPages.post(`/admin/accounts/${zed}/action`, {
      type: "silence",
      text: "",
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/admin/accounts/${zed}?notice=account_action`);
    assert.notEqual((await accountRow(zed)).silencedAt, null);
    const lift = await modPages.post(`/admin/accounts/${zed}/unsilence`);
    assert.equal(lift.status, 303);
    assert.equal((await accountRow(zed)).silencedAt, null);
    assert.equal((await auditRows(zed, "unsilence")).length, 1);
  });

  await t.step("the list's filters", async () => {
    const handles = async (session: typeof modPages, query: string) => {
      const res = await page(await session.get(`/admin/accounts?${query}`));
      assert.equal(res.status, 200, query);
      return [...res.html.matchAll(/<a href="\/admin\/accounts\/\d+"[^>]*>([^<]+)<\/a>/g)]
        .map((m) => m[1]);
    };
    assert.deepEqual(await handles(modPages, "origin=remote"), ["@zed@remote.example"]);
    // A trailing slash is ignored, as everywhere.
    const slash = await page(await modPages.get("/admin/accounts/?origin=remote"));
    assert.equal(slash.status, 200);
    includes(slash.html, "@zed@remote.example");
    const local = await handles(modPages, "origin=local");
    assert.ok(local.includes("@bob") && !local.includes("@zed@remote.example"));
    assert.deepEqual(await handles(modPages, "status=suspended"), ["@bob"]);
    assert.deepEqual(await handles(modPages, "display_name=bobby"), ["@bob"]);
    assert.deepEqual(await handles(modPages, "origin=remote&by_domain=REMOTE.example"), [
      "@zed@remote.example",
    ]);
    // E-mail and IP are an admin's filters: a moderator's are ignored and not offered.
    const all = await handles(modPages, "");
    assert.deepEqual(await handles(modPages, "email=carol"), all);
    assert.ok(!(await page(await modPages.get("/admin/accounts"))).html.includes("filter-email"));
    assert.deepEqual(await handles(adminPages, "email=carol%40"), ["@carol"]);
    // Newest first, paged.
    const first = await handles(modPages, "limit=2");
    assert.equal(first.length, 2);
    assert.deepEqual(first, all.slice(0, 2));
    const res = await page(await modPages.get("/admin/accounts?limit=2"));
    const older = res.html.match(/href="([^"]+)" rel="next"/)![1].replaceAll("&amp;", "&");
    assert.deepEqual(await handles(modPages, older.split("?")[1]), all.slice(2, 4));
    // What means nothing: the admin API's answer (400 unknown words, 422 too long), never a 500.
    for (
      const [query, status, reason] of [
        ["status=bogus", 400, "Unknown status"],
        ["origin=mars", 400, "Unknown origin"],
        [`username=${"u".repeat(321)}`, 422, "too long"],
      ] as const
    ) {
      const bad = await page(await modPages.get(`/admin/accounts?${query}`));
      assert.equal(bad.status, status, query);
      includes(bad.html, reason);
    }
    // An address that is not one matches no one, as in the API (Mastodon's valid_ip?).
    assert.deepEqual(await handles(adminPages, "ip=not-an-ip"), []);
  });

  await t.step("reject a sign-up; an admin deletes a suspended account's data", async () => {
    const dan = await createUser(instance, "dan", { approved: false });
    const reject = await modPages.post(`/admin/accounts/${dan.id}/reject`);
    assert.equal(reject.status, 303);
    assert.equal(
      reject.headers.get("location"),
      "/admin/accounts?status=pending&notice=account_rejected",
    );
    assert.equal(await accountRow(dan.id), undefined);
    // Approving an account that is not pending: 422.
    const again = await page(await modPages.post(`/admin/accounts/${pat.id}/approve`));
    assert.equal(again.status, 422);
    includes(again.html, "not pending approval");

    const shown = await page(await adminPages.get(`/admin/accounts/${bob.id}`));
    includes(shown.html, 'class="card delete-form"');
    const unconfirmed = await page(await adminPages.post(`/admin/accounts/${bob.id}/delete`));
    assert.equal(unconfirmed.status, 422);
    includes(unconfirmed.html, "confirmation box");
    assert.equal((await auditRows(bob.id, "destroy")).length, 0);
    const del = await adminPages.post(`/admin/accounts/${bob.id}/delete`, { confirm: "true" });
    assert.equal(del.status, 303);
    assert.equal(
      del.headers.get("location"),
      `/admin/accounts/${bob.id}?notice=account_data_deleted`,
    );
    assert.equal((await auditRows(bob.id, "destroy")).length, 1);
    assert.notEqual((await accountRow(bob.id)).deletedAt, null);
    // The tombstone is still shown (as the API shows it), with no command left.
    const tomb = await page(await adminPages.get(`/admin/accounts/${bob.id}`));
    assert.equal(tomb.status, 200);
    includes(tomb.html, "data was deleted");
    assert.ok(!tomb.html.includes("/unsuspend"));
    const late = await page(await adminPages.post(`/admin/accounts/${bob.id}/unsuspend`));
    assert.equal(late.status, 404);
  });
});
