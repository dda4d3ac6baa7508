/**
 * The staff domain block pages. In headless Chromium: an admin blocks a
 * domain with suspend (the admin API lists the block, the domain's account
 * is suspended), edits it and removes it (the account is back); a moderator
 * gets 403. Over plain HTTP: who may post, forged posts, unknown ids,
 * invalid and oversized input, the existing-block conflict, and the
 * allow-list of allowlist mode.
 */
import assert from "node:assert/strict";
import { and, count, eq } from "drizzle-orm";
import {
  accounts,
  adminActionLogs,
  domainAllows,
  domainBlocks,
  users,
} from "../../db/schema/mod.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { browserTest, signInWithForm } from "../fixtures/browser.ts";
import { insertRemoteAccount } from "../discovery/helpers.ts";
import { includes, signInOverHttp } from "./http_session.ts";

const instance = await startInstance({ listen: true });
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;
const adam = await createUser(instance, "adam", {
  scopes: ["read", "write", "admin:read", "admin:write"],
});
await db.update(users).set({ role: "admin" }).where(eq(users.id, adam.userId));
const mona = await createUser(instance, "mona");
await db.update(users).set({ role: "moderator" }).where(eq(users.id, mona.userId));
await createUser(instance, "pat");
const ed = await insertRemoteAccount(instance, "ed", "evil.example");

const suspendedAt = async (id: string) =>
  (await db.select().from(accounts).where(eq(accounts.id, id)))[0].suspendedAt;
const blockCount = async () => (await db.select({ n: count() }).from(domainBlocks))[0].n;
const audit = (type: string, action: string) =>
  db.select().from(adminActionLogs).where(
    and(eq(adminActionLogs.targetType, type), eq(adminActionLogs.action, action)),
  );

browserTest("an admin blocks a domain, edits the block and removes it", async (browser) => {
  const page = await browser.newPage();
  await page.goto(`${instance.origin}/auth/sign_in?redirect_to=/admin`);
  await signInWithForm(page, "adam", TEST_PASSWORD);
  await Promise.all([
    page.waitForNavigation(),
    page.click('header a[href="/admin/domain_blocks"]'),
  ]);
  assert.equal(await page.textContent("h1"), "Domain blocks");
  includes((await page.textContent(".federation-mode"))!, "open");
  assert.equal(await page.$(".allow-form"), null, "no allow-list outside allowlist mode");

  await page.fill("#block-domain", "EVIL.example");
  await page.selectOption("#block-severity", "suspend");
  await page.check("input[name=reject_reports]");
  await page.fill("#block-public", "Harassment");
  await page.fill("#block-private", "See the <b>ticket</b>");
  await Promise.all([page.waitForNavigation(), page.click(".block-form button[type=submit]")]);
  assert.equal(new URL(page.url()).pathname, "/admin/domain_blocks");
  includes((await page.textContent("[role=status]"))!, "blocked");
  const row = "tr[data-domain='evil.example']";
  assert.equal((await page.textContent(`${row} .severity`))!.trim(), "suspend");
  includes((await page.textContent(row))!, "See the <b>ticket</b>");

  // The admin API lists it, with every field; the domain's account is suspended.
  const api = await callJson(instance, adam, "GET", "/api/v1/admin/domain_blocks");
  assert.equal(api.status, 200);
  assert.equal(api.body.length, 1);
  const block = api.body[0];
  assert.equal(block.domain, "evil.example");
  assert.equal(block.severity, "suspend");
  assert.equal(block.reject_reports, true);
  assert.equal(block.reject_media, false);
  assert.equal(block.public_comment, "Harassment");
  assert.equal(block.private_comment, "See the <b>ticket</b>");
  assert.notEqual(await suspendedAt(ed), null);
  const seen = await callJson(instance, adam, "GET", `/api/v1/admin/accounts/${ed}`);
  assert.equal(seen.body.suspended, true);

  // Edit: down to a limit, which lifts the domain's suspension.
  await Promise.all([page.waitForNavigation(), page.click(`${row} a`)]);
  assert.equal(await page.textContent("h1"), "Domain block: evil.example");
  assert.equal(await page.inputValue("#block-severity"), "suspend");
  assert.ok(await page.isChecked("input[name=reject_reports]"));
  await page.selectOption("#block-severity", "silence");
  await page.check("input[name=reject_media]");
  await page.fill("#block-public", "Harassment, now limited");
  await Promise.all([page.waitForNavigation(), page.click(".block-form button[type=submit]")]);
  includes((await page.textContent("[role=status]"))!, "changed");
  assert.equal((await page.textContent(`${row} .severity`))!.trim(), "silence");
  const [edited] = await db.select().from(domainBlocks);
  assert.equal(edited.severity, "silence");
  assert.equal(edited.rejectMedia, true);
  assert.equal(edited.rejectReports, true);
  assert.equal(edited.publicComment, "Harassment, now limited");
  assert.equal(await suspendedAt(ed), null);

  // Remove.
  await Promise.all([page.waitForNavigation(), page.click(`${row} button:has-text('Remove')`)]);
  includes((await page.textContent("[role=status]"))!, "lifted");
  assert.equal(await page.$(row), null);
  const after = await callJson(instance, adam, "GET", "/api/v1/admin/domain_blocks");
  assert.deepEqual(after.body, []);
  for (const action of ["create", "update", "destroy"]) {
    const rows = await audit("DomainBlock", action);
    assert.equal(rows.length, 1, action);
    assert.equal(rows[0].accountId, adam.id);
  }
});

browserTest("a moderator gets 403 at /admin/domain_blocks", async (browser) => {
  const page = await browser.newPage();
  await page.goto(`${instance.origin}/auth/sign_in?redirect_to=/admin`);
  await signInWithForm(page, "mona", TEST_PASSWORD);
  assert.equal(await page.$('header a[href="/admin/domain_blocks"]'), null);
  const response = await page.goto(`${instance.origin}/admin/domain_blocks`);
  assert.equal(response?.status(), 403);
  assert.equal(await page.textContent("h1"), "Forbidden");
});

test("staff domain block pages over HTTP", async (t) => {
  const adminPages = await signInOverHttp(instance, "adam");
  const read = async (res: Response) => ({ status: res.status, html: await res.text() });

  await t.step("moderators, users, strangers and forged posts: 403", async () => {
    const [existing] = await db.insert(domainBlocks)
      .values({ id: "1000", domain: "kept.example", severity: "silence" }).returning();
    for (const login of ["mona", "pat"]) {
      const session = await signInOverHttp(instance, login, "/");
      for (const path of ["/admin/domain_blocks", `/admin/domain_blocks/${existing.id}`]) {
        const res = await session.get(path);
        assert.equal(res.status, 403, `${login} GET ${path}`);
        await res.body?.cancel();
      }
      for (
        const [path, fields] of [
          ["/admin/domain_blocks", { domain: "new.example", severity: "suspend" }],
          [`/admin/domain_blocks/${existing.id}`, { severity: "suspend" }],
          [`/admin/domain_blocks/${existing.id}/delete`, {}],
          ["/admin/domain_allows", { domain: "new.example" }],
        ] as const
      ) {
        const res = await session.post(path, fields);
        assert.equal(res.status, 403, `${login} POST ${path}`);
        await res.body?.cancel();
      }
    }
    // An admin's session without the form token, and no session at all.
    for (const headers of [{ cookie: adminPages.cookie }, {}] as Record<string, string>[]) {
      const res = await instance.request("/admin/domain_blocks", {
        method: "POST",
        headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
        body: "domain=new.example&severity=suspend",
      });
      assert.equal(res.status, 403);
      await res.body?.cancel();
    }
    const [still] = await db.select().from(domainBlocks);
    assert.equal(await blockCount(), 1);
    assert.equal(still.severity, "silence");
  });

  await t.step("invalid and oversized input: 422 with the reason, nothing stored", async () => {
    for (
      const [fields, reason] of [
        [{ domain: "not a domain!" }, "Domain"],
        [{ domain: "" }, "Domain"],
        [{ domain: `${"a".repeat(301)}.example` }, "too long"],
        [{ domain: "ok.example", severity: "nuke" }, "Severity"],
        [{ domain: "ok.example", private_comment: "x".repeat(5_001) }, "too long"],
        [{ domain: "ok.example", public_comment: "y".repeat(5_001) }, "too long"],
      ] as const
    ) {
      const res = await read(await adminPages.post("/admin/domain_blocks", fields));
      assert.equal(res.status, 422, JSON.stringify(fields).slice(0, 80));
      includes(res.html, 'class="alert"');
      includes(res.html, reason);
    }
    assert.equal(await blockCount(), 1);
    // The refused form comes back as sent.
    const res = await read(
      await adminPages.post("/admin/domain_blocks", {
        domain: "not a domain!",
        public_comment: "keep <me>",
      }),
    );
    includes(res.html, 'value="not a domain!"');
    includes(res.html, "keep &lt;me&gt;</textarea>");
  });

  await t.step("the existing block: Mastodon's message", async () => {
    // The same domain, or a subdomain with a block no stricter than its parent's.
    for (
      const [domain, severity] of [["kept.example", "suspend"], ["sub.kept.example", "noop"]]
    ) {
      const res = await read(await adminPages.post("/admin/domain_blocks", { domain, severity }));
      assert.equal(res.status, 422, domain);
      includes(res.html, "You have already imposed stricter limits on kept.example.");
      includes(res.html, '<a href="/admin/domain_blocks/1000">');
    }
    // A stricter block of a subdomain is allowed.
    const sub = await adminPages.post("/admin/domain_blocks", {
      domain: "sub.kept.example",
      severity: "suspend",
    });
    assert.equal(sub.status, 303);
    assert.equal(sub.headers.get("location"), "/admin/domain_blocks?notice=domain_block_created");
  });

  await t.step("unknown and malformed ids: 404 in the layout", async () => {
    for (const id of ["999", "abc", "99999999999999999999999"]) {
      const page = await read(await adminPages.get(`/admin/domain_blocks/${id}`));
      assert.equal(page.status, 404, id);
      includes(page.html, "<h1>Not found</h1>");
      for (const path of [`/admin/domain_blocks/${id}`, `/admin/domain_blocks/${id}/delete`]) {
        const res = await adminPages.post(path, { severity: "noop" });
        assert.equal(res.status, 404, path);
        await res.body?.cancel();
      }
      const allow = await adminPages.post(`/admin/domain_allows/${id}/delete`);
      assert.equal(allow.status, 404);
      await allow.body?.cancel();
    }
  });

  await t.step("an edit refused keeps the page: 422", async () => {
    const res = await read(
      await adminPages.post("/admin/domain_blocks/1000", {
        severity: "silence",
        private_comment: "z".repeat(5_001),
      }),
    );
    assert.equal(res.status, 422);
    includes(res.html, "Domain block: kept.example");
    const [row] = await db.select().from(domainBlocks).where(eq(domainBlocks.id, "1000"));
    assert.equal(row.privateComment, null);
    // A box left unticked on the form means false (the form sends every field).
    await db.update(domainBlocks).set({ rejectMedia: true, publicComment: "old" })
      .where(eq(domainBlocks.id, "1000"));
    const saved = await adminPages.post("/admin/domain_blocks/1000/", {
      severity: "noop",
      public_comment: "  ",
    });
    assert.equal(saved.status, 303);
    const [after] = await db.select().from(domainBlocks).where(eq(domainBlocks.id, "1000"));
    assert.equal(after.severity, "noop");
    assert.equal(after.rejectMedia, false);
    assert.equal(after.publicComment, null);
  });

  await t.step("allowlist mode: the allowed domains, added and removed", async () => {
    const config = instance.rookery.ctx.config as { federationMode: string };
    config.federationMode = "allowlist";
    try {
      const page = await read(await adminPages.get("/admin/domain_blocks"));
      includes(page.html, "allowlist (limited)");
      assert.equal((await adminPages.get("/admin/domain_blocks/")).status, 200);
      includes(page.html, 'class="filters allow-form"');
      const add = await adminPages.post("/admin/domain_allows", { domain: "Friends.example" });
      assert.equal(add.status, 303);
      assert.equal(add.headers.get("location"), "/admin/domain_blocks?notice=domain_allow_created");
      const [allow] = await db.select().from(domainAllows);
      assert.equal(allow.domain, "friends.example");
      includes(
        (await read(await adminPages.get("/admin/domain_blocks"))).html,
        'data-allow="friends.example"',
      );
      const bad = await read(await adminPages.post("/admin/domain_allows", { domain: "no way" }));
      assert.equal(bad.status, 422);
      includes(bad.html, 'value="no way"');
      const remove = await adminPages.post(`/admin/domain_allows/${allow.id}/delete`);
      assert.equal(remove.status, 303);
      assert.equal((await db.select({ n: count() }).from(domainAllows))[0].n, 0);
      assert.equal((await audit("DomainAllow", "destroy")).length, 1);
    } finally {
      config.federationMode = "open";
    }
  });
});
