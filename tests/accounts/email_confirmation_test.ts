/** E-mail confirmation: the mail file, the link, resending, and refusals. */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { oauthAccessTokens, users } from "../../db/schema/mod.ts";
import { createAccessToken } from "../../actors/oauth/tokens.ts";
import { json, startInstance, test, type TestInstance } from "../harness.ts";
import {
  appToken,
  authed,
  confirmationLink,
  localUser,
  mailFiles,
  signUp,
  signUpForm,
} from "./helpers.ts";

async function startConfirming(): Promise<TestInstance> {
  return await startInstance({ env: { REQUIRE_EMAIL_CONFIRMATION: "true" } });
}

function resend(instance: TestInstance, token: string, form: Record<string, string> = {}) {
  return authed(instance, token, "/api/v1/emails/confirmations", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
}

test("a sign-up mails a link; following it unlocks the token", async () => {
  const instance = await startConfirming();
  try {
    const { token: app } = await appToken(instance);
    const res = await signUp(instance, app, signUpForm("mailme"));
    const { access_token } = await json(res);
    assert.equal(res.status, 200);

    const before = await authed(instance, access_token, "/api/v1/accounts/verify_credentials");
    assert.equal(before.status, 403);
    assert.deepEqual(await json(before), {
      error: "Your login is missing a confirmed e-mail address",
    });
    const check = await authed(instance, access_token, "/api/v1/emails/check_confirmation");
    assert.equal(await json(check), false);

    const mails = await mailFiles(instance);
    assert.equal(mails.length, 1);
    assert.match(mails[0], /^To: mailme@example\.com$/m);
    assert.match(mails[0], /^Subject: .*Confirmation instructions/m);
    const link = confirmationLink(mails[0]);
    assert.ok(link.startsWith(`${instance.origin}/auth/confirmation?`), link);

    const page = await instance.request(link);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(html, /E-mail address confirmed/);

    const after = await authed(instance, access_token, "/api/v1/accounts/verify_credentials");
    assert.equal(after.status, 200);
    assert.equal((await json(after)).username, "mailme");
    assert.equal(
      await json(await authed(instance, access_token, "/api/v1/emails/check_confirmation")),
      true,
    );

    // Following the link again is harmless.
    const again = await instance.request(link);
    assert.equal(again.status, 200);
    assert.match(await again.text(), /Already confirmed/);

    // A confirmed login has nothing to resend.
    const late = await resend(instance, access_token);
    assert.equal(late.status, 403);
    assert.deepEqual(await json(late), {
      error: "This method is only available while the e-mail is awaiting confirmation",
    });
  } finally {
    await instance.close({ destroy: true });
  }
});

test("bad and expired links get a clear page and change nothing", async () => {
  const instance = await startConfirming();
  try {
    const { token: app } = await appToken(instance);
    const { access_token } = await json(await signUp(instance, app, signUpForm("slowpoke")));
    const bad = await instance.request("/auth/confirmation?confirmation_token=nope");
    assert.equal(bad.status, 404);
    assert.match(await bad.text(), /Invalid confirmation link/);
    const missing = await instance.request("/auth/confirmation");
    assert.equal(missing.status, 404);
    await missing.body?.cancel();

    const db = instance.rookery.ctx.database.db;
    await db.update(users).set({ confirmationSentAt: new Date(Date.now() - 3 * 86_400_000) })
      .where(eq(users.email, "slowpoke@example.com"));
    const [mail] = await mailFiles(instance);
    const expired = await instance.request(confirmationLink(mail));
    assert.equal(expired.status, 410);
    assert.match(await expired.text(), /expired/);
    const me = await authed(instance, access_token, "/api/v1/accounts/verify_credentials");
    assert.equal(me.status, 403);
    await me.body?.cancel();
  } finally {
    await instance.close({ destroy: true });
  }
});

test("resending mails a new link (the old one stops working), optionally to a new address", async () => {
  const instance = await startConfirming();
  try {
    const { token: app } = await appToken(instance);
    const { access_token } = await json(await signUp(instance, app, signUpForm("typo")));
    const [first] = await mailFiles(instance);

    const res = await resend(instance, access_token);
    assert.equal(res.status, 200);
    assert.deepEqual(await json(res), {});
    const second = (await mailFiles(instance))[1];
    assert.ok(second, "a second mail was written");
    assert.notEqual(confirmationLink(first), confirmationLink(second));
    const old = await instance.request(confirmationLink(first));
    assert.equal(old.status, 404);
    await old.body?.cancel();

    await localUser(instance, "other");
    const taken = await resend(instance, access_token, { email: "other@example.com" });
    assert.equal(taken.status, 422);
    assert.equal((await json(taken)).details.email[0].error, "ERR_TAKEN");
    const invalid = await resend(instance, access_token, { email: "nope" });
    assert.equal(invalid.status, 422);
    await invalid.body?.cancel();
    // A domain that takes no mail (DNS answers: no MX, A or AAAA) is refused too.
    instance.rookery.ctx.resolveEmailDns = (name, type) =>
      Promise.resolve(type === "A" && name !== "nowhere.example" ? ["192.0.2.1"] : []);
    const unreachable = await resend(instance, access_token, { email: "me@nowhere.example" });
    assert.equal(unreachable.status, 422);
    assert.equal((await json(unreachable)).details.email[0].error, "ERR_UNREACHABLE");

    const moved = await resend(instance, access_token, { email: "fixed@example.com" });
    assert.equal(moved.status, 200);
    await moved.body?.cancel();
    const mails = await mailFiles(instance);
    const third = mails.find((m) => /^To: fixed@example\.com$/m.test(m))!;
    assert.ok(third, "the new address got its link");
    // The address signed up with is told of the change.
    const told = mails.filter((m) => /^To: typo@example\.com$/m.test(m));
    assert.match(told[told.length - 1], /change requested/);
    const page = await instance.request(confirmationLink(third));
    assert.equal(page.status, 200);
    await page.body?.cancel();
    const [user] = await instance.rookery.ctx.database.db.select().from(users)
      .where(eq(users.email, "fixed@example.com"));
    assert.ok(user?.confirmedAt, "the new address is the confirmed one");
    assert.equal(user.unconfirmedEmail, null);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("only the signing-up app may resend", async () => {
  const instance = await startConfirming();
  try {
    const { token: app } = await appToken(instance);
    await json(await signUp(instance, app, signUpForm("picky")));
    // An app token (no user) and a token of another origin are refused alike.
    const byApp = await resend(instance, app);
    assert.equal(byApp.status, 403);
    assert.match((await json(byApp)).error, /originally signed-up with/);
    const { token: cliToken } = await localUser(instance, "climade");
    const byCli = await resend(instance, cliToken);
    assert.equal(byCli.status, 403);
    await byCli.body?.cancel();
    const anonymous = await instance.request("/api/v1/emails/confirmations", { method: "POST" });
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    // Resending writes (a mail, maybe a new address): the right app's token
    // without write:accounts is refused, as Mastodon does.
    const { db } = instance.rookery.ctx.database;
    const [user] = await db.select().from(users).where(eq(users.email, "picky@example.com"));
    const [signUpToken] = await db.select().from(oauthAccessTokens)
      .where(eq(oauthAccessTokens.userId, user.id));
    const { token: readOnly } = await createAccessToken(db, {
      applicationId: signUpToken.applicationId,
      userId: user.id,
      scopes: ["read"],
    });
    const byReader = await resend(instance, readOnly);
    assert.equal(byReader.status, 403);
    assert.deepEqual(await json(byReader), {
      error: "This action is outside the authorized scopes",
    });
  } finally {
    await instance.close({ destroy: true });
  }
});

test("without confirmation required, new accounts are confirmed at once and no mail is sent", async () => {
  const instance = await startInstance();
  try {
    const { token: app } = await appToken(instance);
    const res = await signUp(instance, app, signUpForm("instant"));
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.deepEqual(await mailFiles(instance), []);
    const [user] = await instance.rookery.ctx.database.db.select().from(users)
      .where(eq(users.email, "instant@example.com"));
    assert.ok(user.confirmedAt);
    assert.equal(user.confirmationTokenHash, null);
  } finally {
    await instance.close({ destroy: true });
  }
});
