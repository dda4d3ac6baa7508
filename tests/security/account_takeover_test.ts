/**
 * Issue 29: nobody takes over an account through its e-mail address.
 * `POST /api/v1/emails/confirmations` speaks only for the app an account
 * signed up with (users.created_by_application_id, recorded at registration,
 * filled for older rows by migration 0038), needs `write:accounts`, and sets
 * a new address only while the account is unconfirmed. Whenever the address
 * waiting for confirmation changes, by the API or the settings page, the
 * current address is told. Over HTTP: a web sign-up that later authorized
 * other apps through OAuth, and an API sign-up; the mail files show who was
 * written to.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { users } from "../../db/schema/mod.ts";
import { json, startInstance, test } from "../harness.ts";
import {
  appToken,
  authed,
  confirmationLink,
  mailFiles,
  signUp,
  signUpForm,
} from "../accounts/helpers.ts";
import {
  authorizeInBrowser,
  Browser,
  formFields,
  PASSWORD,
  registerApp,
  tokenRequest,
} from "../oauth/helpers.ts";
import { openForm } from "../web/helpers.ts";
import { RESEND_ERRORS } from "../../api/routes/email_confirmations.ts";

const REDIRECT = "https://client.example/callback";
const instance = await startInstance({ env: { REQUIRE_EMAIL_CONFIRMATION: "true" } });
const db = instance.rookery.ctx.database.db;

/** The mails written to `address` so far. */
async function mailsTo(address: string): Promise<string[]> {
  return (await mailFiles(instance)).filter((m) =>
    m.toLowerCase().includes(`to: ${address.toLowerCase()}`)
  );
}

async function userRow(email: string) {
  const [row] = await db.select().from(users)
    .where(sql`lower(${users.email}) = ${email.toLowerCase()}`);
  return row;
}

function resend(token: string, form: Record<string, string> = {}) {
  return authed(instance, token, "/api/v1/emails/confirmations", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
}

/** Signs up on the web page and follows the mailed link: a confirmed account no app made. */
async function webSignUp(username: string): Promise<void> {
  const form = await openForm(instance, "/auth/sign_up");
  const res = await form.post("/auth/sign_up", {
    username,
    email: `${username}@example.com`,
    password: PASSWORD,
    password_confirmation: PASSWORD,
    agreement: "1",
  });
  assert.equal(res.status, 303, await res.text());
  const [mail] = await mailsTo(`${username}@example.com`);
  const link = new URL(confirmationLink(mail));
  const confirmed = await instance.request(link.pathname + link.search);
  assert.equal(confirmed.status, 200);
  await confirmed.body?.cancel();
}

/** The user authorizes an app through OAuth in `browser`; returns the app's user token. */
async function authorizeApp(
  browser: Browser,
  login: string,
  scope: string,
): Promise<{ token: string; appId: string }> {
  const app = await registerApp(instance, { redirect_uris: REDIRECT, scopes: scope });
  const url = await authorizeInBrowser(browser, {
    client_id: app.client_id,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope,
  }, login);
  const res = await tokenRequest(instance, {
    grant_type: "authorization_code",
    code: url.searchParams.get("code")!,
    client_id: app.client_id,
    client_secret: app.client_secret,
    redirect_uri: REDIRECT,
  });
  assert.equal(res.status, 200);
  return { token: (await json(res)).access_token, appId: app.id };
}

/** Asks for a new address on the settings page, signed in as `browser`. */
async function changeInSettings(browser: Browser, email: string): Promise<Response> {
  const page = await browser.get("/settings/account");
  assert.equal(page.status, 200);
  return await browser.post("/settings/account/email", {
    ...formFields(await page.text(), "/settings/account/email"),
    email,
    current_password: PASSWORD,
  });
}

test("an app the user authorized later cannot change the address (account takeover)", async () => {
  await webSignUp("victim");
  const browser = new Browser(instance);
  // The first app the user ever authorized holds the account's oldest token,
  // which is not the app the account signed up with (there was none).
  const writer = await authorizeApp(browser, "victim", "read write");
  const reader = await authorizeApp(browser, "victim", "read");
  // A change waits for confirmation: the state in which the old check let any app in.
  const asked = await changeInSettings(browser, "victim.new@example.com");
  assert.equal(asked.status, 303);
  await asked.body?.cancel();
  assert.equal((await mailsTo("victim@example.com")).length, 2, "sign-up link, change notice");

  const byReader = await resend(reader.token, { email: "attacker@evil.example" });
  assert.equal(byReader.status, 403);
  await byReader.body?.cancel();
  const byWriter = await resend(writer.token, { email: "attacker@evil.example" });
  assert.equal(byWriter.status, 403);
  assert.deepEqual(await json(byWriter), { error: RESEND_ERRORS.otherApplication });
  // Not even a resend to the address the user asked for.
  const plain = await resend(writer.token);
  assert.equal(plain.status, 403);
  await plain.body?.cancel();

  const row = await userRow("victim@example.com");
  assert.equal(row.unconfirmedEmail, "victim.new@example.com");
  assert.equal(row.createdByApplicationId, null);
  assert.deepEqual(await mailsTo("attacker@evil.example"), []);
  assert.equal((await mailsTo("victim.new@example.com")).length, 1);
});

test("whenever the address waiting changes, the current address is told", async () => {
  await webSignUp("watcher");
  const browser = new Browser(instance);
  // Signed in through the OAuth form (the settings gate reads the same session).
  await authorizeApp(browser, "watcher", "read");
  const notices = async () =>
    (await mailsTo("watcher@example.com")).filter((m) => m.includes("change requested"));
  for (const email of ["first@watcher.example", "second@watcher.example"]) {
    const res = await changeInSettings(browser, email);
    assert.equal(res.status, 303);
    await res.body?.cancel();
  }
  let told = await notices();
  assert.equal(told.length, 2);
  assert.ok(told[1].includes("second@watcher.example"));
  // The same address again resends its link; nothing new to tell.
  const again = await changeInSettings(browser, "Second@Watcher.example");
  assert.equal(again.status, 303);
  await again.body?.cancel();
  told = await notices();
  assert.equal(told.length, 2);
  assert.equal((await mailsTo("second@watcher.example")).length, 2);
});

test("the app an account signed up with changes its address only while unconfirmed", async () => {
  const app = await appToken(instance);
  const res = await signUp(instance, app.token, signUpForm("newcomer"));
  assert.equal(res.status, 200);
  const { access_token: own } = await json(res);
  assert.ok((await userRow("newcomer@example.com")).createdByApplicationId);

  const moved = await resend(own, { email: "newcomer@fixed.example" });
  assert.equal(moved.status, 200);
  assert.deepEqual(await json(moved), {});
  const notice = (await mailsTo("newcomer@example.com")).filter((m) =>
    m.includes("change requested")
  );
  assert.equal(notice.length, 1, "the address signed up with is told");
  assert.ok(notice[0].includes("newcomer@fixed.example"));
  const links = await mailsTo("newcomer@fixed.example");
  assert.equal(links.length, 1, "one link to the new address, not two");
  const link = new URL(confirmationLink(links[0]));
  const confirmed = await instance.request(link.pathname + link.search);
  assert.equal(confirmed.status, 200);
  await confirmed.body?.cancel();

  // Confirmed, nothing waiting: nothing to resend.
  const late = await resend(own, { email: "attacker@evil.example" });
  assert.equal(late.status, 403);
  assert.deepEqual(await json(late), { error: RESEND_ERRORS.notAwaiting });

  // A change asked for in the settings may be resent by that app, with write:accounts only.
  const browser = new Browser(instance);
  const url = await authorizeInBrowser(browser, {
    client_id: app.clientId,
    redirect_uri: "urn:ietf:wg:oauth:2.0:oob",
    response_type: "code",
    scope: "read",
  }, "newcomer");
  const exchanged = await tokenRequest(instance, {
    grant_type: "authorization_code",
    code: url.searchParams.get("code")!,
    client_id: app.clientId,
    client_secret: app.clientSecret,
    redirect_uri: "urn:ietf:wg:oauth:2.0:oob",
  });
  const readOnly = (await json(exchanged)).access_token;
  const asked = await changeInSettings(browser, "newcomer@later.example");
  assert.equal(asked.status, 303);
  await asked.body?.cancel();
  const narrow = await resend(readOnly);
  assert.equal(narrow.status, 403);
  assert.deepEqual(await json(narrow), { error: "This action is outside the authorized scopes" });
  const again = await resend(own);
  assert.equal(again.status, 200);
  await again.body?.cancel();
  assert.equal((await mailsTo("newcomer@later.example")).length, 2);
  // Confirmed: the address changes only in the settings now, with the password.
  const replaced = await resend(own, { email: "attacker@evil.example" });
  assert.equal(replaced.status, 403);
  assert.deepEqual(await json(replaced), { error: RESEND_ERRORS.confirmedAccount });
  assert.equal(
    (await userRow("newcomer@fixed.example")).unconfirmedEmail,
    "newcomer@later.example",
  );
  assert.deepEqual(await mailsTo("attacker@evil.example"), []);
});

test("migration 0038 names the sign-up app only where it is certain", async () => {
  const { token: appCredentials } = await appToken(instance);
  const res = await signUp(instance, appCredentials, signUpForm("oldtimer"));
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const signedUp = await userRow("oldtimer@example.com");
  const web = await userRow("victim@example.com");
  // Rows as they were before 0026 recorded the app.
  await db.update(users).set({ createdByApplicationId: null })
    .where(eq(users.id, signedUp.id));
  const migration = await Deno.readTextFile(
    new URL("../../db/migrations/0038_created_by_application.sql", import.meta.url),
  );
  await instance.rookery.ctx.database.rows(sql.raw(migration));
  assert.equal(
    (await userRow("oldtimer@example.com")).createdByApplicationId,
    signedUp
      .createdByApplicationId,
  );
  // The web account authorized two apps later: neither becomes its sign-up app.
  assert.equal((await userRow("victim@example.com")).createdByApplicationId, null);
  assert.equal(web.createdByApplicationId, null);
});
