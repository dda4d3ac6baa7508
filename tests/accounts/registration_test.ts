/** POST /api/v1/accounts: tokens, detail codes, registration modes, minimum age. */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema/mod.ts";
import { json, startInstance, test } from "../harness.ts";
import { appToken, authed, localUser, signUp, signUpForm } from "./helpers.ts";

/** The detail codes of a 422, per field. */
function codes(body: any): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(body.details ?? {}).map(([k, v]) => [k, (v as any[]).map((e) => e.error)]),
  );
}

test("sign-up returns a user token with the app's scopes that works at once", async () => {
  const instance = await startInstance();
  try {
    const { token } = await appToken(instance, "read write follow push", "write:accounts");
    const res = await signUp(instance, token, signUpForm("newbie"));
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.token_type, "Bearer");
    assert.equal(body.scope, "read write follow push");
    assert.equal(typeof body.access_token, "string");
    assert.equal(typeof body.created_at, "number");

    const me = await authed(instance, body.access_token, "/api/v1/accounts/verify_credentials");
    const account = await json(me);
    assert.equal(me.status, 200, JSON.stringify(account));
    assert.equal(account.username, "newbie");
    assert.equal(account.acct, "newbie");
    assert.equal(account.source.privacy, "public");
    assert.equal(account.role.id, "-99");

    const app = await json(
      await authed(instance, body.access_token, "/api/v1/apps/verify_credentials"),
    );
    assert.equal(app.name, "Test client", "the token belongs to the registering app");
  } finally {
    await instance.close({ destroy: true });
  }
});

test("sign-up refusals carry Mastodon's detail codes and write nothing", async () => {
  const instance = await startInstance({ env: { MIN_AGE: "16" } });
  try {
    const { token } = await appToken(instance);
    await localUser(instance, "taken");

    const blank = await signUp(instance, token, {});
    const blankBody = await json(blank);
    assert.equal(blank.status, 422);
    assert.match(blankBody.error, /^Validation failed: /);
    assert.deepEqual(codes(blankBody), {
      username: ["ERR_BLANK"],
      // Rails reports both validations of an empty address, as Mastodon answers.
      email: ["ERR_BLANK", "ERR_INVALID"],
      password: ["ERR_BLANK"],
      agreement: ["ERR_ACCEPTED"],
      date_of_birth: ["ERR_BLANK"],
    });
    assert.equal(blankBody.details.agreement[0].description, "must be accepted");

    const cases: [Record<string, string>, string, string][] = [
      [{ username: "taken" }, "username", "ERR_TAKEN"],
      [{ username: "TAKEN" }, "username", "ERR_TAKEN"],
      [{ username: "admin" }, "username", "ERR_RESERVED"],
      [{ username: "no spaces" }, "username", "ERR_INVALID"],
      [{ username: "a".repeat(31) }, "username", "ERR_TOO_LONG"],
      [{ email: "taken@example.com" }, "email", "ERR_TAKEN"],
      [{ email: "not-an-address" }, "email", "ERR_INVALID"],
      [{ email: "two@@example.com" }, "email", "ERR_INVALID"],
      [{ email: "with space@example.com" }, "email", "ERR_INVALID"],
      // The API keeps Mastodon's rule; only the admin command line takes dotless hosts.
      [{ email: "admin@localhost" }, "email", "ERR_INVALID"],
      [{ password: "short" }, "password", "ERR_TOO_SHORT"],
      [{ password: "x".repeat(73) }, "password", "ERR_TOO_LONG"],
      [{ agreement: "false" }, "agreement", "ERR_ACCEPTED"],
      [{ agreement: "yes" }, "agreement", "ERR_ACCEPTED"],
      [{ locale: "xx" }, "locale", "ERR_INCLUSION"],
      [{ locale: "english" }, "locale", "ERR_INCLUSION"],
      [{ date_of_birth: "2001-02-30" }, "date_of_birth", "ERR_INVALID"],
      [{ date_of_birth: "yesterday" }, "date_of_birth", "ERR_INVALID"],
    ];
    const young = new Date();
    young.setUTCFullYear(young.getUTCFullYear() - 15);
    cases.push([
      { date_of_birth: young.toISOString().slice(0, 10) },
      "date_of_birth",
      "ERR_BELOW_LIMIT",
    ]);
    for (const [change, field, code] of cases) {
      const form = { ...signUpForm("fresh"), date_of_birth: "1990-01-01", ...change };
      const res = await signUp(instance, token, form);
      const body = await json(res);
      assert.equal(res.status, 422, `${JSON.stringify(change)}: ${JSON.stringify(body)}`);
      assert.deepEqual(codes(body), { [field]: [code] }, JSON.stringify(change));
    }
    const emptyEmail = await json(
      await signUp(instance, token, {
        ...signUpForm("fresh"),
        date_of_birth: "1990-01-01",
        email: "",
      }),
    );
    assert.deepEqual(codes(emptyEmail), { email: ["ERR_BLANK", "ERR_INVALID"] });
    assert.equal(emptyEmail.error, "Validation failed: Email can't be blank, Email is invalid");
    const below = await json(
      await signUp(instance, token, {
        ...signUpForm("fresh"),
        date_of_birth: young.toISOString().slice(0, 10),
      }),
    );
    assert.equal(below.error, "Validation failed: Date of birth is below the age limit");

    const count = await instance.rookery.ctx.database.db.select({ id: users.id }).from(users);
    assert.equal(count.length, 1, "only the pre-existing user exists");

    // Old enough, and Mastodon's DD.MM.YYYY form is understood too.
    const ok = await signUp(instance, token, {
      ...signUpForm("grownup"),
      date_of_birth: "01.02.1990",
    });
    assert.equal(ok.status, 200, await ok.text());
    const [stored] = await instance.rookery.ctx.database.db.select().from(users)
      .where(eq(users.email, "grownup@example.com"));
    assert.equal(stored.dateOfBirth, "1990-02-01");
    assert.equal(stored.locale, "en");
  } finally {
    await instance.close({ destroy: true });
  }
});

test("closed registrations answer 403 as Mastodon's forbidden", async () => {
  const instance = await startInstance({ env: { REGISTRATIONS: "closed" } });
  try {
    const { token } = await appToken(instance);
    const res = await signUp(instance, token, signUpForm("nobody"));
    assert.equal(res.status, 403);
    assert.deepEqual(await json(res), { error: "This action is not allowed" });
  } finally {
    await instance.close({ destroy: true });
  }
});

test("approval mode needs a reason and leaves the login pending", async () => {
  const instance = await startInstance({ env: { REGISTRATIONS: "approval" } });
  try {
    const { token } = await appToken(instance);
    const noReason = await signUp(instance, token, signUpForm("hopeful"));
    assert.equal(noReason.status, 422);
    assert.deepEqual(codes(await json(noReason)), { reason: ["ERR_BLANK"] });

    const tooLong = await signUp(
      instance,
      token,
      signUpForm("hopeful", { reason: "x".repeat(421) }),
    );
    assert.deepEqual(codes(await json(tooLong)), { reason: ["ERR_TOO_LONG"] });

    const res = await signUp(
      instance,
      token,
      signUpForm("hopeful", { reason: "I like birds" }),
    );
    const body = await json(res);
    assert.equal(res.status, 200, JSON.stringify(body));
    const me = await authed(instance, body.access_token, "/api/v1/accounts/verify_credentials");
    assert.equal(me.status, 403);
    assert.deepEqual(await json(me), { error: "Your login is currently pending approval" });
    const [user] = await instance.rookery.ctx.database.db.select().from(users)
      .where(eq(users.email, "hopeful@example.com"));
    assert.equal(user.approved, false);
    assert.equal(user.reason, "I like birds");
  } finally {
    await instance.close({ destroy: true });
  }
});

test("sign-up needs a token of an app with write:accounts", async () => {
  const instance = await startInstance();
  try {
    const form = signUpForm("someone");
    const none = await instance.request("/api/v1/accounts", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });
    assert.equal(none.status, 401);
    assert.deepEqual(await json(none), { error: "The access token is invalid" });

    const readOnly = await appToken(instance, "read write", "read");
    const scoped = await signUp(instance, readOnly.token, form);
    assert.equal(scoped.status, 403);
    assert.deepEqual(await json(scoped), {
      error: "This action is outside the authorized scopes",
    });

    // A user token that belongs to no application (made by the admin CLI) is not an app's.
    const { token: userToken } = await localUser(instance, "existing", ["write:accounts"]);
    const byUser = await signUp(instance, userToken, form);
    assert.equal(byUser.status, 401);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("sign-ups are limited to 5 per 30 minutes per IP", async () => {
  const instance = await startInstance({ env: { RATE_LIMITS: "on" } });
  try {
    const { token } = await appToken(instance);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      // Invalid forms count too: the limit is on attempts.
      const res = await signUp(instance, token, { username: `u${i}` });
      await res.body?.cancel();
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [422, 422, 422, 422, 422, 429]);
  } finally {
    await instance.close({ destroy: true });
  }
});
