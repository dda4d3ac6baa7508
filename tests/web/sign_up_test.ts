/**
 * The web sign-up at /auth/sign_up. In headless Chromium: a newcomer signs
 * up, follows the confirmation link of the mail file, signs in, turns on
 * two-factor sign-in and signs in again with a code. Over
 * plain HTTP: forged posts, the API's rules on the form (taken name, no
 * agreement, mismatched passwords), approval mode asking for a reason, and
 * closed sign-ups.
 */
import assert from "node:assert/strict";
import { count, eq, sql } from "drizzle-orm";
import { accounts, users } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { createUser } from "../fixtures/users.ts";
import { browserTest, signInWithForm } from "../fixtures/browser.ts";
import { confirmationLink, mailFiles } from "../accounts/helpers.ts";
import { openForm } from "./helpers.ts";
import * as OTPAuth from "otpauth";

const PASSWORD = "a long enough password";
const instance = await startInstance({
  listen: true,
  env: { REQUIRE_EMAIL_CONFIRMATION: "true" },
});
const approval = await startInstance({ env: { REGISTRATIONS: "approval" } });
const db = instance.rookery.ctx.database.db;
await createUser(instance, "taken");

function includes(text: string, part: string): void {
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in ${JSON.stringify(text)}`);
}

async function userCount(database = db): Promise<number> {
  const [row] = await database.select({ n: count() }).from(users);
  return row.n;
}

function form(username: string, extra: Record<string, string> = {}) {
  return {
    username,
    email: `${username}@example.com`,
    password: PASSWORD,
    password_confirmation: PASSWORD,
    agreement: "1",
    ...extra,
  };
}

browserTest(
  "a newcomer signs up, confirms by the mail, signs in, and turns on 2FA",
  async (browser) => {
    const page = await browser.newPage();
    await page.goto(`${instance.origin}/auth/sign_in`);
    await Promise.all([page.waitForNavigation(), page.click('a[href="/auth/sign_up"]')]);
    assert.equal(
      await page.textContent("h1"),
      `Join ${instance.rookery.ctx.config.instance.title}`,
    );
    await page.fill("#username", "newbie");
    await page.fill("#email", "newbie@example.com");
    await page.fill("#password", PASSWORD);
    await page.fill("#password_confirmation", PASSWORD);
    await page.check("#agreement");
    await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
    includes((await page.textContent("main"))!, "We sent a confirmation link");

    // Not yet confirmed: the sign-in says so.
    await page.goto(`${instance.origin}/auth/sign_in?redirect_to=/auth/sign_up/done`);
    await signInWithForm(page, "newbie", PASSWORD);
    includes((await page.textContent("main"))!, "missing a confirmed e-mail address");

    const mails = (await mailFiles(instance)).filter((m) => m.includes("newbie@example.com"));
    assert.equal(mails.length, 1);
    await page.goto(confirmationLink(mails[0]));
    assert.equal(await page.textContent("h1"), "E-mail address confirmed");

    await page.goto(`${instance.origin}/auth/sign_in?redirect_to=/auth/sign_up/done`);
    await signInWithForm(page, "newbie", PASSWORD);
    assert.equal(new URL(page.url()).pathname, "/auth/sign_up/done");
    const cookies = await page.context().cookies();
    assert.ok(cookies.some((c) => c.name === "_rookery_session"), "signed in");
    const [row] = await db.select({
      confirmedAt: users.confirmedAt,
      approved: users.approved,
      app: users.createdByApplicationId,
    }).from(users).innerJoin(accounts, eq(accounts.id, users.accountId))
      .where(eq(accounts.username, "newbie"));
    assert.ok(row.confirmedAt);
    assert.equal(row.approved, true);
    assert.equal(row.app, null);

    // Two-factor sign-in: the password again, then the secret from the page,
    // a code computed here.
    await page.goto(`${instance.origin}/settings/otp_authentication`);
    assert.equal(await page.textContent("h1"), "Confirm your password");
    await page.fill("#current_password", PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click("main button[type=submit]")]);
    const secret = (await page.textContent("[data-otp-secret]"))!.trim();
    includes((await page.textContent("[data-otp-uri]"))!, "otpauth://totp/");
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    await page.fill("#otp_attempt", totp.generate());
    await Promise.all([page.waitForNavigation(), page.click("main button[type=submit]")]);
    assert.equal(await page.textContent("h1"), "Two-factor sign-in is on");
    assert.equal((await page.$$("[data-recovery-codes] li")).length, 10);

    // Signing out and in again now asks for a code after the password.
    await Promise.all([page.waitForNavigation(), page.click("header button[type=submit]")]);
    await page.goto(`${instance.origin}/auth/sign_in?redirect_to=/settings/otp_authentication`);
    await signInWithForm(page, "newbie@example.com", PASSWORD);
    assert.equal(new URL(page.url()).pathname, "/auth/sign_in/otp");
    assert.equal(await page.textContent("h1"), "Two-factor authentication");
    // The code of the next half-minute: the one just used is spent.
    await page.fill("#otp_attempt", totp.generate({ timestamp: Date.now() + 30_000 }));
    await Promise.all([page.waitForNavigation(), page.click("main button[type=submit]")]);
    assert.equal(new URL(page.url()).pathname, "/settings/otp_authentication");
    includes((await page.textContent("main"))!, "Two-factor sign-in is on");
    await page.close();
  },
);

test("sign-up over HTTP: forged posts, the API's rules, approval and reason", async (t) => {
  await t.step(
    "a post without the browser's form token is refused and writes nothing",
    async () => {
      const before = await userCount();
      const browser = await openForm(instance, "/auth/sign_up");
      // The right field but no cookie (another site's form).
      const forged = await instance.request("/auth/sign_up", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ ...form("forged1"), authenticity_token: browser.token }),
      });
      assert.equal(forged.status, 403);
      includes(await forged.text(), "This form expired");
      // The cookie but another token.
      const wrong = await browser.post(
        "/auth/sign_up",
        { ...form("forged2"), authenticity_token: "x".repeat(43) },
      );
      assert.equal(wrong.status, 403);
      await wrong.body?.cancel();
      assert.equal(await userCount(), before);
    },
  );

  await t.step("the API's rules show beside the fields, and nothing is written", async () => {
    const before = await userCount();
    const browser = await openForm(instance, "/auth/sign_up");
    const res = await browser.post("/auth/sign_up", {
      ...form("taken", { email: "TAKEN@example.com" }),
      agreement: "",
    });
    assert.equal(res.status, 422);
    const html = await res.text();
    includes(html, "Username is already taken");
    includes(html, "Email is already taken");
    includes(html, "The agreement must be accepted");
    // The typed values come back (escaped), the password never does.
    includes(html, 'value="taken"');
    assert.ok(!html.includes(PASSWORD));

    const reserved = await browser.post("/auth/sign_up", form("admin"));
    assert.equal(reserved.status, 422);
    includes(await reserved.text(), "Username is reserved");

    const hostile = await browser.post("/auth/sign_up", form("<b>x</b>"));
    assert.equal(hostile.status, 422);
    const hostileHtml = await hostile.text();
    includes(hostileHtml, 'value="&lt;b&gt;x&lt;/b&gt;"');
    assert.ok(!hostileHtml.includes("<b>x</b>"));

    const mismatch = await browser.post(
      "/auth/sign_up",
      form("mismatch", { password_confirmation: "something else entirely" }),
    );
    assert.equal(mismatch.status, 422);
    includes(await mismatch.text(), "Password confirmation doesn&#39;t match");
    assert.equal(await userCount(), before);
  });

  await t.step("a success goes to a page that says what comes next", async () => {
    const browser = await openForm(instance, "/auth/sign_up");
    const res = await browser.post("/auth/sign_up", form("second"));
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/auth/sign_up/done?next=confirm");
    const done = await instance.request(res.headers.get("location")!);
    includes(await done.text(), "We sent a confirmation link");
    assert.equal(done.headers.get("content-security-policy")?.includes("default-src 'none'"), true);
  });

  await t.step("approval mode asks for a reason and leaves the account waiting", async () => {
    const adb = approval.rookery.ctx.database.db;
    const browser = await openForm(approval, "/auth/sign_up");
    includes(await (await approval.request("/auth/sign_up")).text(), 'name="reason"');
    const blank = await browser.post("/auth/sign_up", form("waiting"));
    assert.equal(blank.status, 422);
    includes(await blank.text(), "Reason can&#39;t be blank");
    assert.equal(await userCount(adb), 0);
    const res = await browser.post("/auth/sign_up", form("waiting", { reason: "I knit socks" }));
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/auth/sign_up/done?next=pending");
    const [row] = await adb.select({ approved: users.approved, reason: users.reason }).from(users)
      .where(sql`lower(${users.email}) = 'waiting@example.com'`);
    assert.deepEqual(row, { approved: false, reason: "I knit socks" });
  });

  await t.step("closed sign-ups answer 403 to the form and its post", async () => {
    const config = approval.rookery.ctx.config as { registrations: string };
    const was = config.registrations;
    config.registrations = "closed";
    try {
      const page = await approval.request("/auth/sign_up");
      assert.equal(page.status, 403);
      includes(await page.text(), "Sign-ups are closed");
      const post = await approval.request("/auth/sign_up", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form("closedout")),
      });
      assert.equal(post.status, 403);
      await post.body?.cancel();
    } finally {
      config.registrations = was;
    }
  });
});
