/**
 * /settings/account and /auth/confirmation/new. Over HTTP: an e-mail change
 * needs the current password and sign-up's rules (taken, malformed, blocked
 * domains), waits for the new address's confirmation (the mail files), and
 * can be cancelled; a password change needs the current password and the
 * sign-up rules, then revokes every token (401) and ends every other
 * session while this one stays; forged posts change nothing; the resend
 * page gives one answer to every address and is limited per address. In
 * headless Chromium: a password change through the form, axe and
 * screenshots of each page.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema/mod.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { browserTest, signInWithForm } from "../fixtures/browser.ts";
import { confirmationLink, mailFiles } from "../accounts/helpers.ts";
import { includes, signInOverHttp } from "../admin_web/http_session.ts";
import { checkPassword } from "../../actors/auth/sessions.ts";
import { createEmailDomainBlock } from "../../actors/access_blocks/email_domain_blocks.ts";
import { openForm } from "./helpers.ts";
import { checkPage } from "./page_checks.ts";

const NEW_PASSWORD = "a much better passphrase";
const instance = await startInstance({
  listen: true,
  env: { RATE_LIMITS: "on", EMAIL_MX_CHECK: "false" },
});
afterAll(() => instance.close({ destroy: true }));
const db = instance.rookery.ctx.database.db;
const ann = await createUser(instance, "ann");
await createUser(instance, "ben");
const eve = await createUser(instance, "eve");

/** The mails to `address` (the mailer may write its domain in lower case). */
const mailsTo = async (address: string) =>
  (await mailFiles(instance)).filter((m) =>
    m.toLowerCase().includes(`to: ${address.toLowerCase()}`)
  );

const verify = (token: string) =>
  instance.request("/api/v1/accounts/verify_credentials", {
    headers: { authorization: `Bearer ${token}` },
  });

async function emailsOf(userId: string) {
  const [row] = await db.select({ email: users.email, pending: users.unconfirmedEmail })
    .from(users).where(eq(users.id, userId));
  return row;
}

test("changing the e-mail address", async (t) => {
  const session = await signInOverHttp(instance, "ann", "/settings/account");
  const change = (email: string, current_password = TEST_PASSWORD) =>
    session.post("/settings/account/email", { email, current_password });

  await t.step("refused: wrong or blank password, taken, malformed, blocked", async () => {
    await createEmailDomainBlock(db, null, { domain: "blocked.example" });
    const cases: [string, string, string][] = [
      ["new@ann.example", "wrong password", "Current password is invalid"],
      ["new@ann.example", "", "Current password can&#39;t be blank"],
      ["BEN@example.com", TEST_PASSWORD, "Email is already taken"],
      ["not an address", TEST_PASSWORD, "Email is invalid"],
      ["", TEST_PASSWORD, "Email can&#39;t be blank"],
      ["ann@blocked.example", TEST_PASSWORD, "Email uses a disallowed e-mail provider"],
      ["ann@mail.blocked.example", TEST_PASSWORD, "Email uses a disallowed e-mail provider"],
    ];
    for (const [email, password, message] of cases) {
      const res = await change(email, password);
      assert.equal(res.status, 422, email);
      const html = await res.text();
      includes(html, message);
      // The form keeps the address typed, never the password.
      if (email) includes(html, `value="${email}"`);
      assert.ok(!html.includes(`value="${TEST_PASSWORD}"`));
    }
    // A wrong password says nothing about the address (Ben's is not reported taken).
    const probe = await change("ben@example.com", "wrong password");
    assert.ok(!(await probe.text()).includes("already taken"));
    assert.deepEqual(await emailsOf(ann.userId), { email: "ann@example.com", pending: null });
    assert.equal((await mailsTo("new@ann.example")).length, 0);
  });

  await t.step("a forged post changes nothing", async () => {
    const res = await session.post("/settings/account/email", {
      email: "forged@ann.example",
      current_password: TEST_PASSWORD,
      authenticity_token: "forged",
    });
    assert.equal(res.status, 403);
    await res.body?.cancel();
    assert.equal((await emailsOf(ann.userId)).pending, null);
  });

  await t.step("the new address waits for its confirmation link", async () => {
    const res = await change("New@Ann.example");
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/settings/account?notice=email_pending");
    assert.deepEqual(await emailsOf(ann.userId), {
      email: "ann@example.com",
      pending: "New@Ann.example",
    });
    const page = await (await session.get("/settings/account?notice=email_pending")).text();
    includes(page, "A confirmation link was mailed to the new address");
    includes(page, "Waiting for confirmation");
    // The old address still signs in; the old one is told of the request.
    assert.equal((await checkPassword(db, "ann@example.com", TEST_PASSWORD)).ok, true);
    const notice = await mailsTo("ann@example.com");
    assert.equal(notice.length, 1);
    includes(notice[0], "New@Ann.example");
    const mails = await mailsTo("New@Ann.example");
    assert.equal(mails.length, 1);
    const link = new URL(confirmationLink(mails[0]));
    const confirmed = await instance.request(link.pathname + link.search);
    assert.equal(confirmed.status, 200);
    includes(await confirmed.text(), "New@Ann.example is confirmed");
    assert.deepEqual(await emailsOf(ann.userId), { email: "New@Ann.example", pending: null });
    assert.equal((await checkPassword(db, "new@ann.example", TEST_PASSWORD)).ok, true);
    assert.equal((await checkPassword(db, "ann@example.com", TEST_PASSWORD)).ok, false);
  });

  await t.step("asking for the current address cancels a pending change", async () => {
    const asked = await change("later@ann.example");
    assert.equal(asked.status, 303);
    assert.equal((await emailsOf(ann.userId)).pending, "later@ann.example");
    const cancelled = await change("new@ann.example");
    assert.equal(cancelled.status, 303);
    assert.equal(cancelled.headers.get("location"), "/settings/account?notice=email_unchanged");
    assert.equal((await emailsOf(ann.userId)).pending, null);
  });
});

test("changing the password", async (t) => {
  const session = await signInOverHttp(instance, "eve", "/settings/account");
  const other = await signInOverHttp(instance, "eve", "/settings/account");
  const change = (fields: Record<string, string>) =>
    session.post("/settings/account/password", {
      current_password: TEST_PASSWORD,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
      ...fields,
    });

  await t.step("refused: wrong password, too short, mismatch, forged", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ current_password: "wrong password" }, "Current password is invalid"],
      [{ password: "short", password_confirmation: "short" }, "Password is too short"],
      [{ password: "x".repeat(73), password_confirmation: "x".repeat(73) }, "Password is too long"],
      [{ password_confirmation: "something else" }, "Password confirmation doesn&#39;t match"],
    ];
    for (const [fields, message] of cases) {
      const res = await change(fields);
      assert.equal(res.status, 422, message);
      includes(await res.text(), message);
    }
    const forged = await change({ authenticity_token: other.token + "x" });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    assert.equal((await checkPassword(db, "eve", TEST_PASSWORD)).ok, true);
    const still = await verify(eve.token);
    assert.equal(still.status, 200);
    await still.body?.cancel();
    assert.equal((await other.get("/settings/account")).status, 200);
  });

  await t.step("a new password revokes tokens and other sessions; this one stays", async () => {
    const res = await change({});
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/settings/account?notice=password_changed");
    assert.equal((await checkPassword(db, "eve", NEW_PASSWORD)).ok, true);
    assert.equal((await checkPassword(db, "eve", TEST_PASSWORD)).ok, false);
    const api = await verify(eve.token);
    assert.equal(api.status, 401);
    await api.body?.cancel();
    const gone = await other.get("/settings/account");
    assert.equal(gone.status, 303);
    includes(gone.headers.get("location")!, "/auth/sign_in");
    const mine = await session.get("/settings/account?notice=password_changed");
    assert.equal(mine.status, 200);
    includes(await mine.text(), "Every other browser and every app was signed out");
    const mails = await mailsTo("eve@example.com");
    assert.equal(mails.length, 1);
    includes(mails[0], "Your password has been changed");
  });
});

test("resending the confirmation link", async (t) => {
  const cat = await createUser(instance, "cat", { confirmed: false });
  const ask = async (email: string) => {
    const browser = await openForm(instance, "/auth/confirmation/new");
    const res = await browser.post("/auth/confirmation", { email });
    return { status: res.status, text: await res.text() };
  };

  await t.step("one answer for every address; only one waiting gets a mail", async () => {
    const waiting = await ask("CAT@example.com");
    const unknown = await ask("nobody@example.com");
    const confirmed = await ask("ben@example.com");
    for (const answer of [waiting, unknown, confirmed]) {
      assert.equal(answer.status, 200);
      includes(answer.text, "If your e-mail address exists in our database");
    }
    const strip = (html: string) => html.replace(/value="[^"]+"/g, "");
    assert.equal(strip(waiting.text), strip(unknown.text));
    assert.equal(strip(waiting.text), strip(confirmed.text));
    assert.equal((await mailsTo("nobody@example.com")).length, 0);
    assert.equal((await mailsTo("ben@example.com")).length, 0);
    const mails = await mailsTo("cat@example.com");
    assert.equal(mails.length, 1);
    const link = new URL(confirmationLink(mails[0]));
    const res = await instance.request(link.pathname + link.search);
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal((await checkPassword(db, "cat", TEST_PASSWORD)).ok, true);
    void cat;
  });

  await t.step("a pending new address gets the link again", async () => {
    const session = await signInOverHttp(instance, "ben", "/settings/account");
    const res = await session.post("/settings/account/email", {
      email: "ben@new.example",
      current_password: TEST_PASSWORD,
    });
    assert.equal(res.status, 303);
    assert.equal((await ask("ben@new.example")).status, 200);
    assert.equal((await mailsTo("ben@new.example")).length, 2);
  });

  await t.step("a forged post mails nothing", async () => {
    const before = (await mailsTo("ben@new.example")).length;
    const res = await instance.request("/auth/confirmation", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "ben@new.example", authenticity_token: "forged" }),
    });
    assert.equal(res.status, 403);
    await res.body?.cancel();
    assert.equal((await mailsTo("ben@new.example")).length, before);
  });

  await t.step("more than 5 requests for one address in 30 minutes answer 429", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await ask("Dan@Example.com")).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
  });
});

browserTest("account pages in a browser: a password change, axe, screenshots", async (browser) => {
  await createUser(instance, "fay");
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${instance.origin}/auth/edit`);
  await signInWithForm(page, "fay", TEST_PASSWORD);
  assert.equal(new URL(page.url()).pathname, "/settings/account");
  includes((await page.textContent("[data-email]"))!, "fay@example.com");
  await page.fill("#password-current-password", TEST_PASSWORD);
  await page.fill("#password", NEW_PASSWORD);
  await page.fill("#password_confirmation", NEW_PASSWORD);
  await Promise.all([page.waitForNavigation(), page.click(".password-form button")]);
  includes((await page.textContent("main"))!, "Your password was changed.");
  assert.equal((await checkPassword(db, "fay", NEW_PASSWORD)).ok, true);

  const cookies = await context.cookies();
  const origin = instance.origin;
  await checkPage(browser, {
    origin,
    name: "settings_account",
    path: "/settings/account",
    cookies,
  });
  await checkPage(browser, {
    origin,
    name: "settings_account_refused",
    path: "/settings/account",
    cookies,
    async prepare(tab) {
      await tab.fill("#email", "ben@example.com");
      await tab.fill("#email-current-password", NEW_PASSWORD);
      await Promise.all([tab.waitForNavigation(), tab.click(".email-form button")]);
      includes((await tab.textContent("#email-error"))!, "Email is already taken");
    },
  });
  await checkPage(browser, {
    origin,
    name: "confirmation_new",
    path: "/auth/confirmation/new",
  });
  await context.close();
});
