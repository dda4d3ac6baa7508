/**
 * The reports pages under /admin. In headless Chromium: a moderator opens
 * the queue, sees a report filed over the API, opens it, assigns it, limits
 * (silences) the account with a warning (the account is silenced, the
 * report resolved and gone from the queue, audit rows written), reopens it
 * and changes its category. Over plain HTTP: non-staff get 403 everywhere,
 * a post without the form token is refused, unknown and malformed ids are
 * 404 pages, oversized and invalid input is a 422 page with nothing
 * written, an outranked moderator is refused, a Flag's report names the
 * sending server, the queue pages and filters, and a report's collections.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { accounts, accountWarnings, reports, users } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { addRule } from "../../actors/moderation/instance_rules.ts";
import { listAdminActions } from "../../actors/moderation/audit_log.ts";
import { WARNING_TEXT_MAX } from "../../actors/moderation/account_actions.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createToken, createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { browserTest, signInWithForm } from "../fixtures/browser.ts";
import { includes, signInOverHttp } from "./http_session.ts";

const instance = await startInstance({ listen: true });
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;
const mona = await createUser(instance, "mona");
await db.update(users).set({ role: "moderator" }).where(eq(users.id, mona.userId));
const ada = await createUser(instance, "ada");
await db.update(users).set({ role: "admin" }).where(eq(users.id, ada.userId));
const pat = await createUser(instance, "pat");
const troll = await createUser(instance, "troll");
const rule = await addRule(db, { text: "No spam" });

const evidence = await postStatus(instance, troll, "Buy <cheap> pills at example.test", {
  visibility: "unlisted",
});
const report = await ok(instance, pat, "POST", "/api/v1/reports", {
  account_id: troll.id,
  status_ids: [evidence.id],
  comment: "This is spam, again and again",
  category: "spam",
});
/** A report about the admin, which a moderator may not act on. */
const aboutAda = await ok(instance, pat, "POST", "/api/v1/reports", {
  account_id: ada.id,
  comment: "the admin is rude",
});

async function reportRow(id: string) {
  const [row] = await db.select().from(reports).where(eq(reports.id, id));
  return row;
}
async function accountRow(id: string) {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
  return row;
}

browserTest("a moderator handles a report in the browser", async (browser) => {
  const page = await browser.newPage();
  await page.goto(`${instance.origin}/admin/reports`);
  await signInWithForm(page, "mona", TEST_PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/admin/reports");
  assert.equal(await page.textContent("h1"), "Reports");

  // The queue: the report filed over the API, with its facts.
  const row = `tr[data-report-id="${report.id}"]`;
  includes((await page.textContent(`${row} .target`))!, "@troll");
  includes((await page.textContent(`${row} .reporter`))!, "@pat");
  assert.equal((await page.textContent(`${row} .category`))!.trim(), "spam");
  includes((await page.textContent(`${row} .comment`))!, "This is spam");
  assert.equal((await page.textContent(`${row} .statuses`))!.trim(), "1");
  includes((await page.textContent(`${row} .assigned`))!, "nobody");
  assert.ok(await page.$(`tr[data-report-id="${aboutAda.id}"]`));

  // The report in full, with the reported post rendered (escaped, sanitized).
  await Promise.all([
    page.waitForNavigation(),
    page.click(`${row} a[href="/admin/reports/${report.id}"]`),
  ]);
  assert.equal(await page.textContent("h1"), `Report #${report.id}`);
  includes((await page.textContent("#target"))!, "@troll");
  includes((await page.textContent("#target"))!, "Active");
  includes((await page.textContent("#comment"))!, "This is spam, again and again");
  includes((await page.textContent("#state"))!, "unresolved");
  const card = `section[data-status-id="${evidence.id}"]`;
  includes((await page.textContent(`${card} .content`))!, "Buy <cheap> pills");
  assert.equal((await page.textContent(`${card} .visibility`))!.trim(), "unlisted");
  includes((await page.textContent(`${card} .media`))!, "0 attachments");

  // Assign to me.
  await Promise.all([page.waitForNavigation(), page.click("button:has-text('Assign to me')")]);
  includes(page.url(), "notice=report_assigned");
  includes((await page.textContent("[role=status]"))!, "assigned to you");
  includes((await page.textContent("#assigned"))!, "@mona");
  assert.equal((await reportRow(report.id)).assignedAccountId, mona.id);

  // Limit (silence) the account with a warning, without e-mail.
  await page.check("input[name=type][value=silence]");
  await page.fill("#text", "Stop posting spam.");
  await page.uncheck("input[name=send_email_notification]");
  await Promise.all([page.waitForNavigation(), page.click("button:has-text('Perform action')")]);
  assert.equal(new URL(page.url()).pathname, "/admin/reports");
  includes((await page.textContent("[role=status]"))!, "The action is taken");
  // Gone from the open queue; the other report stays.
  assert.equal(await page.$(row), null);
  assert.ok(await page.$(`tr[data-report-id="${aboutAda.id}"]`));

  // The account is silenced (the admin API says so too), the report resolved by mona.
  assert.ok((await accountRow(troll.id)).silencedAt);
  const adminToken = await createToken(instance, mona.userId, ["admin:read"]);
  const adminView = await ok(instance, adminToken, "GET", `/api/v1/admin/accounts/${troll.id}`);
  assert.equal(adminView.silenced, true);
  const resolved = await reportRow(report.id);
  assert.ok(resolved.actionTakenAt);
  assert.equal(resolved.actionTakenByAccountId, mona.id);
  const [warning] = await db.select().from(accountWarnings)
    .where(eq(accountWarnings.targetAccountId, troll.id));
  assert.equal(warning.text, "Stop posting spam.");
  assert.equal(warning.action, "silence");
  assert.equal(warning.reportId, report.id);
  // Audit rows, each by mona.
  const reportLog = (await listAdminActions(db, { targetType: "Report", targetId: report.id }))
    .map((r) => [r.action, r.accountId]);
  assert.deepEqual(reportLog.reverse(), [["assigned_to_self", mona.id], ["resolve", mona.id]]);
  const accountLog = await listAdminActions(db, { targetType: "Account", targetId: troll.id });
  assert.deepEqual(accountLog.map((r) => [r.action, r.accountId]), [["silence", mona.id]]);

  // The resolved queue has it; its page shows the new state; reopen it.
  await Promise.all([
    page.waitForNavigation(),
    page.click(`nav.filters a[href="/admin/reports?resolved=1"]`),
  ]);
  assert.equal(await page.textContent("h1"), "Resolved reports");
  assert.ok(await page.$(row));
  await Promise.all([
    page.waitForNavigation(),
    page.click(`${row} a[href="/admin/reports/${report.id}"]`),
  ]);
  includes((await page.textContent("#state"))!, "resolved");
  includes((await page.textContent("#state"))!, "@mona");
  includes((await page.textContent("#target"))!, "Limited");
  await Promise.all([page.waitForNavigation(), page.click("button:has-text('Reopen')")]);
  includes((await page.textContent("#state"))!, "unresolved");
  assert.equal((await reportRow(report.id)).actionTakenAt, null);

  // Change the category to a violation of the rule.
  await page.selectOption("#category", "violation");
  await page.check(`input[name="rule_ids[]"][value="${rule.id}"]`);
  await Promise.all([page.waitForNavigation(), page.click("button:has-text('Change category')")]);
  assert.equal((await page.textContent("#category-value"))!.trim(), "violation");
  includes((await page.textContent("#rules"))!, "No spam");
  assert.deepEqual((await reportRow(report.id)).ruleIds, [rule.id]);
  // A violation without rules is refused on the page, nothing changed.
  await page.uncheck(`input[name="rule_ids[]"][value="${rule.id}"]`);
  const [refusal] = await Promise.all([
    page.waitForNavigation(),
    page.click("button:has-text('Change category')"),
  ]);
  assert.equal(refusal?.status(), 422);
  includes((await page.textContent(".alert"))!, "Rule ids");
  assert.deepEqual((await reportRow(report.id)).ruleIds, [rule.id]);

  // Unassign.
  await Promise.all([page.waitForNavigation(), page.click("button:has-text('Unassign')")]);
  includes((await page.textContent("#assigned"))!, "nobody");
  const log = await listAdminActions(db, { targetType: "Report", targetId: report.id });
  // The refused change wrote nothing, its audit row included.
  assert.deepEqual(log.map((r) => r.action).reverse(), [
    "assigned_to_self",
    "resolve",
    "reopen",
    "update",
    "unassigned",
  ]);
});

async function get(path: string, cookie: string): Promise<{ status: number; html: string }> {
  const res = await instance.request(path, { headers: { cookie }, redirect: "manual" });
  return { status: res.status, html: await res.text() };
}

async function post(
  path: string,
  session: { cookie: string; token: string | null },
  fields: Record<string, string> = {},
): Promise<{ status: number; html: string; location: string | null }> {
  const body = new URLSearchParams(fields);
  if (session.token != null) body.set("authenticity_token", session.token);
  const res = await instance.request(path, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: session.cookie, "content-type": "application/x-www-form-urlencoded" },
    body,
  });
  return { status: res.status, html: await res.text(), location: res.headers.get("location") };
}

const ACTIONS = ["assign_to_self", "unassign", "resolve", "reopen", "category", "action"];

test("reports pages over HTTP: who may, hostile input, refusals", async (t) => {
  const staff = await signInOverHttp(instance, "mona");
  const user = await signInOverHttp(instance, "pat");

  await t.step("a user who is not staff gets 403 on every page and form", async () => {
    // pat's own session token does not open a staff page, nor does mona's (a token is no key).
    for (const path of ["/admin/reports", `/admin/reports/${aboutAda.id}`, "/admin/reports/1"]) {
      assert.equal((await get(path, user.cookie)).status, 403, path);
    }
    for (const name of ACTIONS) {
      for (const token of [user.token, staff.token]) {
        const res = await post(`/admin/reports/${aboutAda.id}/${name}`, {
          cookie: user.cookie,
          token,
        }, { type: "suspend", category: "other" });
        assert.equal(res.status, 403, name);
      }
    }
    // Signed out: the form posts are refused, the pages send to the sign-in form.
    assert.equal(
      (await post(`/admin/reports/${aboutAda.id}/resolve`, { cookie: "", token: null })).status,
      403,
    );
    assert.equal((await get("/admin/reports", "")).status, 303);
    assert.equal((await reportRow(aboutAda.id)).actionTakenAt, null);
    assert.equal((await accountRow(ada.id)).suspendedAt, null);
  });

  await t.step("a form post without the session's token is refused", async () => {
    for (const token of [null, "forged"]) {
      const res = await post(`/admin/reports/${aboutAda.id}/resolve`, {
        cookie: staff.cookie,
        token,
      });
      assert.equal(res.status, 403);
    }
    assert.equal((await reportRow(aboutAda.id)).actionTakenAt, null);
  });

  await t.step("unknown and malformed ids are 404 pages", async () => {
    for (const id of ["999999999", "abc", "1%27%20OR%201=1", "9".repeat(400)]) {
      const page = await get(`/admin/reports/${id}`, staff.cookie);
      assert.equal(page.status, 404, id);
      includes(page.html, "No such report.");
      includes(page.html, "<header>");
      for (const name of ACTIONS) {
        const res = await post(`/admin/reports/${id}/${name}`, staff, {
          type: "silence",
          category: "spam",
        });
        assert.equal(res.status, 404, `${name} ${id}`);
      }
    }
    // A trailing slash is the same page.
    assert.equal((await get(`/admin/reports/${aboutAda.id}/`, staff.cookie)).status, 200);
    // Odd query parameters are defaults, never an error.
    for (const query of ["resolved[]=1", "resolved[a]=1&max_id[]=2", "a=1&a[b]=2", "limit=-5"]) {
      const page = await get(`/admin/reports?${query}`, staff.cookie);
      assert.equal(page.status, 200, query);
      includes(page.html, "<h1>Reports</h1>");
    }
    // A filter by an unknown or malformed account id is an empty queue, not an error.
    for (const id of ["999999999", "x".repeat(5000)]) {
      const page = await get(`/admin/reports?target_account_id=${id}`, staff.cookie);
      assert.equal(page.status, 200);
      includes(page.html, "No open reports.");
    }
  });

  await t.step("oversized and invalid input is a 422 page, nothing written", async () => {
    const before = await db.select().from(accountWarnings);
    const cases: [string, Record<string, string>, string][] = [
      ["action", { type: "silence", text: "x".repeat(WARNING_TEXT_MAX + 1) }, "too long"],
      ["action", { type: "obliterate" }, "Type"],
      ["action", { type: "x".repeat(100_000) }, "Type"],
      ["category", { category: "x".repeat(1000) }, "too long"],
      ["category", { category: "bogus" }, "Category"],
      ["category", { category: "violation", "rule_ids[]": "999999" }, "Rule ids"],
    ];
    for (const [name, fields, message] of cases) {
      const res = await post(`/admin/reports/${aboutAda.id}/${name}`, staff, fields);
      assert.equal(res.status, 422, `${name} ${JSON.stringify(fields).slice(0, 80)}`);
      includes(res.html, 'class="alert"');
      includes(res.html, message);
    }
    const row = await reportRow(aboutAda.id);
    assert.equal(row.category, "other");
    assert.equal(row.actionTakenAt, null);
    assert.equal((await accountRow(ada.id)).silencedAt, null);
    assert.equal((await db.select().from(accountWarnings)).length, before.length);
  });

  await t.step("a moderator cannot act on an admin: the API's refusal, on the page", async () => {
    const res = await post(`/admin/reports/${aboutAda.id}/action`, staff, {
      type: "suspend",
      text: "bye",
    });
    assert.equal(res.status, 403);
    includes(res.html, "This action is not allowed");
    includes(res.html, "<header>");
    assert.equal((await accountRow(ada.id)).suspendedAt, null);
    assert.equal((await reportRow(aboutAda.id)).actionTakenAt, null);
    // A warning is refused alike (Mastodon's policy covers every action).
    const warn = await post(`/admin/reports/${aboutAda.id}/action`, staff, { type: "none" });
    assert.equal(warn.status, 403);
  });

  await t.step(
    "a form action redirects with a notice; a warning resolves only this report",
    async () => {
      const res = await post(`/admin/reports/${aboutAda.id}/assign_to_self`, staff);
      assert.equal(res.status, 303);
      assert.equal(res.location, `/admin/reports/${aboutAda.id}?notice=report_assigned`);
      // ada herself (an admin) warns troll through the report about troll (open again).
      const admin = await signInOverHttp(instance, "ada");
      assert.equal((await post(`/admin/reports/${report.id}/reopen`, admin)).status, 303);
      const warn = await post(`/admin/reports/${report.id}/action`, admin, {
        type: "none",
        text: "a warning",
        send_email_notification: "1",
      });
      assert.equal(warn.status, 303);
      assert.equal(warn.location, `/admin/reports/${report.id}?notice=report_warning_sent`);
      assert.ok((await reportRow(report.id)).actionTakenAt);
      assert.equal((await reportRow(aboutAda.id)).actionTakenAt, null);
      const [created] = await listAdminActions(db, { targetType: "AccountWarning" });
      assert.equal(created.accountId, ada.id);
    },
  );

  await t.step("a Flag's report names the server; the queue pages and filters", async () => {
    const [remote] = await db.insert(accounts).values({
      id: newId(),
      username: "modbot",
      domain: "remote.example",
      uri: "https://remote.example/actor",
      fetchedAt: new Date(),
    }).returning();
    const flagged = newId();
    await db.insert(reports).values({
      id: flagged,
      accountId: remote.id,
      targetAccountId: pat.id,
      comment: "<script>alert(1)</script> from afar",
      uri: "https://remote.example/flags/1",
    });
    const queue = await get("/admin/reports", staff.cookie);
    assert.equal(queue.status, 200);
    const rowHtml = queue.html.slice(queue.html.indexOf(`data-report-id="${flagged}"`));
    includes(rowHtml.slice(0, 2000), "remote.example");
    assert.ok(!rowHtml.slice(0, 2000).includes("@modbot"));
    assert.ok(!queue.html.includes("<script>alert"));
    includes(queue.html, "&lt;script&gt;alert(1)");

    // Newest first, one a page: the Flag's report, then the one about ada.
    const first = await get("/admin/reports?limit=1", staff.cookie);
    includes(first.html, `data-report-id="${flagged}"`);
    const older = first.html.match(/href="([^"]+)" rel="next"/)![1].replaceAll("&amp;", "&");
    assert.equal(older, `/admin/reports?limit=1&max_id=${flagged}`);
    const second = await get(older, staff.cookie);
    includes(second.html, `data-report-id="${aboutAda.id}"`);
    assert.ok(!second.html.includes(`data-report-id="${flagged}"`));
    const newer = second.html.match(/href="([^"]+)" rel="prev"/)![1].replaceAll("&amp;", "&");
    includes((await get(newer, staff.cookie)).html, `data-report-id="${flagged}"`);

    // About one account only.
    const aboutPat = await get(`/admin/reports?target_account_id=${pat.id}`, staff.cookie);
    includes(aboutPat.html, `data-report-id="${flagged}"`);
    assert.ok(!aboutPat.html.includes(`data-report-id="${aboutAda.id}"`));
    // The report page counts the target's other open reports.
    await db.insert(reports).values({ id: newId(), accountId: mona.id, targetAccountId: pat.id });
    const detail = await get(`/admin/reports/${flagged}`, staff.cookie);
    assert.equal(detail.status, 200);
    includes(detail.html, "remote.example");
    assert.match(detail.html, /id="other-open"[^>]*><a [^>]+>1<\/a>/);
    // About a remote account: no freezing (it has no sign-in here), and a forged one is a 422.
    const aboutRemote = newId();
    await db.insert(reports).values({
      id: aboutRemote,
      accountId: pat.id,
      targetAccountId: remote.id,
    });
    const remotePage = await get(`/admin/reports/${aboutRemote}`, staff.cookie);
    includes(remotePage.html, 'value="silence"');
    assert.ok(!remotePage.html.includes('value="disable"'));
    const freeze = await post(`/admin/reports/${aboutRemote}/action`, staff, { type: "disable" });
    assert.equal(freeze.status, 422);
    includes(freeze.html, "local accounts only");
    assert.equal((await reportRow(aboutRemote)).actionTakenAt, null);
    const stillOpen = await db.select().from(reports)
      .where(and(eq(reports.targetAccountId, pat.id)));
    assert.equal(stillOpen.length, 2);
  });

  await t.step("a report naming collections lists them, linked to their pages", async () => {
    const curator = await createUser(instance, "curator");
    const named = (await ok(instance, curator, "POST", "/api/v1/collections", {
      name: "<b>Bad</b> picks",
    })).collection;
    const filed = await ok(instance, pat, "POST", "/api/v1/reports", {
      account_id: curator.id,
      collection_ids: [named.id],
    });
    const page = await get(`/admin/reports/${filed.id}`, staff.cookie);
    assert.equal(page.status, 200);
    includes(
      page.html,
      `<dd id="collections" ><ul><li><a href="${named.url}">&lt;b&gt;Bad&lt;/b&gt; picks</a>`,
    );
    await ok(instance, curator, "DELETE", `/api/v1/collections/${named.id}`);
    includes((await get(`/admin/reports/${filed.id}`, staff.cookie)).html, "(they are gone)");
  });
});
