/**
 * Two-factor sign-in over HTTP: turning it on (wrong code refused, recovery
 * codes stored hashed), the password alone making no session on either
 * sign-in (plain and OAuth), wrong codes refused and the challenge given up
 * after 5, a code and a recovery code each working once, forged posts, and
 * turning it off. Setting it up asks for the password first, which lasts an
 * hour on the session. (The browser flow is in sign_up_test.ts.)
 */
import assert from "node:assert/strict";
import { count, eq } from "drizzle-orm";
import * as OTPAuth from "otpauth";
import { users, webSessions } from "../../db/schema/mod.ts";
import { json, startInstance, test, type TestInstance } from "../harness.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { hashSecret } from "../../actors/oauth/tokens.ts";

const instance = await startInstance();
const db = instance.rookery.ctx.database.db;
const tess = await createUser(instance, "tess");

function includes(text: string, part: string): void {
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in ${JSON.stringify(text)}`);
}

/** A browser without a real browser: a cookie jar, and forms posted with their page's token. */
class Jar {
  cookies = new Map<string, string>();
  token = "";
  constructor(readonly instance: TestInstance) {}
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  keep(res: Response): Response {
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";");
      const [name, value] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
      if (attrs.some((a) => /max-age=0/i.test(a.trim())) || value === "") {
        this.cookies.delete(name);
      } else this.cookies.set(name, value);
    }
    return res;
  }
  async get(path: string): Promise<{ res: Response; text: string }> {
    const res = this.keep(
      await this.instance.request(path, { headers: { cookie: this.header() }, redirect: "manual" }),
    );
    const text = await res.text();
    const token = text.match(/name="authenticity_token" value="([^"]+)"/);
    if (token) this.token = token[1];
    return { res, text };
  }
  async post(
    path: string,
    fields: Record<string, string>,
  ): Promise<{ res: Response; text: string }> {
    const res = this.keep(
      await this.instance.request(path, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: this.header(), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ authenticity_token: this.token, ...fields }),
      }),
    );
    const text = await res.text();
    const token = text.match(/name="authenticity_token" value="([^"]+)"/);
    if (token) this.token = token[1];
    return { res, text };
  }
}

/** Password step of the plain sign-in, coming back to `to`. */
async function passwordStep(jar: Jar, to: string, password = TEST_PASSWORD) {
  await jar.get(`/auth/sign_in?redirect_to=${encodeURIComponent(to)}`);
  return await jar.post("/auth/sign_in", { login: "tess", password, redirect_to: to });
}

function code(secret: string, offsetSteps = 0): string {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
  return totp.generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

/**
 * The set-up page asks for the password first (a signed-in session is not
 * enough): no key is shown, and a code posted before is refused; a wrong
 * password is refused; the right one opens the page with its key.
 */
async function confirmPassword(jar: Jar) {
  const asked = await jar.get("/settings/otp_authentication");
  assert.equal(asked.res.status, 200);
  includes(asked.text, "Confirm your password");
  includes(asked.text, 'action="/settings/otp_authentication/challenge"');
  assert.ok(!asked.text.includes("data-otp-secret"), "no key before the password");
  const early = await jar.post("/settings/otp_authentication", { otp_attempt: "123456" });
  assert.equal(early.res.status, 403);
  includes(early.text, "Confirm your password");
  const wrong = await jar.post("/settings/otp_authentication/challenge", {
    current_password: "not the password",
  });
  assert.equal(wrong.res.status, 422);
  includes(wrong.text, "is invalid");
  const right = await jar.post("/settings/otp_authentication/challenge", {
    current_password: TEST_PASSWORD,
  });
  assert.equal(right.res.status, 303);
  assert.equal(right.res.headers.get("location"), "/settings/otp_authentication");
  const page = await jar.get("/settings/otp_authentication");
  assert.equal(page.res.status, 200);
  return page;
}

const sessionsOf = async (userId: string) =>
  (await db.select({ n: count() }).from(webSessions).where(eq(webSessions.userId, userId)))[0].n;

test("two-factor sign-in", async (t) => {
  let secret = "";
  let recovery: string[] = [];
  const owner = new Jar(instance);

  await t.step(
    "turning it on: forged posts 403, a wrong code 422, a right one shows 10 codes",
    async () => {
      const anonymous = await new Jar(instance).get("/settings/otp_authentication");
      assert.equal(anonymous.res.status, 303);
      includes(anonymous.res.headers.get("location")!, "/auth/sign_in?redirect_to=");

      const signedIn = await passwordStep(owner, "/settings/otp_authentication");
      assert.equal(signedIn.res.status, 303);
      const page = await confirmPassword(owner);
      secret = page.text.match(/data-otp-secret="?[^>]*>([A-Z2-7]+)</)![1];
      includes(page.text, `otpauth://totp/`);

      // Another site's post: the session cookie but not the session's token.
      const forged = await owner.post("/settings/otp_authentication", {
        authenticity_token: "forged",
        otp_attempt: code(secret),
      });
      assert.equal(forged.res.status, 403);
      const noSession = await instance.request("/settings/otp_authentication", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ otp_attempt: code(secret) }),
        redirect: "manual",
      });
      assert.equal(noSession.status, 403);
      await noSession.body?.cancel();

      await owner.get("/settings/otp_authentication");
      const wrong = await owner.post("/settings/otp_authentication", { otp_attempt: "000000" });
      assert.equal(wrong.res.status, 422);
      includes(wrong.text, "Invalid two-factor code");
      const [off] = await db.select({ on: users.otpRequiredForLogin }).from(users)
        .where(eq(users.id, tess.userId));
      assert.equal(off.on, false);

      const right = await owner.post("/settings/otp_authentication", { otp_attempt: code(secret) });
      assert.equal(right.res.status, 200);
      recovery = [...right.text.matchAll(/<li>([0-9a-f]{10})<\/li>/g)].map((m) => m[1]);
      assert.equal(recovery.length, 10);
      const [row] = await db.select({
        on: users.otpRequiredForLogin,
        codes: users.otpBackupCodes,
      }).from(users).where(eq(users.id, tess.userId));
      assert.equal(row.on, true);
      // Only hashes are kept.
      assert.deepEqual(row.codes, await Promise.all(recovery.map(hashSecret)));
      // Shown once: the page now offers to turn it off and shows no code.
      const after = await owner.get("/settings/otp_authentication");
      includes(after.text, "10");
      includes(after.text, "Turn it off");
      assert.ok(!after.text.includes(recovery[0]));
    },
  );

  await t.step("the password alone makes no session; the code step cannot be skipped", async () => {
    const before = await sessionsOf(tess.userId);
    const jar = new Jar(instance);
    const step = await passwordStep(jar, "/settings/sessions");
    assert.equal(step.res.status, 303);
    assert.equal(step.res.headers.get("location"), "/auth/sign_in/otp");
    assert.ok(!jar.cookies.has("_rookery_session"));
    assert.ok(jar.cookies.has("_rookery_otp"));
    assert.equal(await sessionsOf(tess.userId), before);
    // Going where the sign-in was headed asks to sign in again.
    const skip = await jar.get("/settings/otp_authentication");
    assert.equal(skip.res.status, 303);
    includes(skip.res.headers.get("location")!, "/auth/sign_in");
    // Another browser (no challenge cookie) cannot answer it.
    const other = new Jar(instance);
    await other.get("/auth/sign_in");
    const stranger = await other.post("/auth/sign_in/otp", { otp_attempt: code(secret, 1) });
    assert.equal(stranger.res.status, 403);
  });

  await t.step("wrong codes are refused; the fifth ends the challenge", async () => {
    const jar = new Jar(instance);
    await passwordStep(jar, "/settings/sessions");
    const page = await jar.get("/auth/sign_in/otp");
    assert.equal(page.res.status, 200);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await jar.post("/auth/sign_in/otp", { otp_attempt: "123456" })).res.status);
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 403]);
    // Over: even the right code is too late.
    const late = await jar.post("/auth/sign_in/otp", { otp_attempt: code(secret, 1) });
    assert.equal(late.res.status, 403);
    includes(late.text, "Please sign in again");
    assert.ok(!jar.cookies.has("_rookery_session"));
  });

  await t.step("a code signs in once; replaying it fails", async () => {
    const jar = new Jar(instance);
    await passwordStep(jar, "/settings/sessions");
    await jar.get("/auth/sign_in/otp");
    const used = code(secret, 1);
    const ok = await jar.post("/auth/sign_in/otp", { otp_attempt: used });
    assert.equal(ok.res.status, 303);
    assert.equal(ok.res.headers.get("location"), "/settings/sessions");
    assert.ok(jar.cookies.has("_rookery_session"));
    const replay = new Jar(instance);
    await passwordStep(replay, "/settings/sessions");
    await replay.get("/auth/sign_in/otp");
    const again = await replay.post("/auth/sign_in/otp", { otp_attempt: used });
    assert.equal(again.res.status, 401);
  });

  await t.step("a recovery code signs in once", async () => {
    const jar = new Jar(instance);
    await passwordStep(jar, "/settings/otp_authentication");
    await jar.get("/auth/sign_in/otp");
    const ok = await jar.post("/auth/sign_in/otp", { otp_attempt: recovery[3].toUpperCase() });
    assert.equal(ok.res.status, 303);
    assert.ok(jar.cookies.has("_rookery_session"));
    includes((await jar.get("/settings/otp_authentication")).text, "You have 9");
    const second = new Jar(instance);
    await passwordStep(second, "/settings/otp_authentication");
    await second.get("/auth/sign_in/otp");
    const again = await second.post("/auth/sign_in/otp", { otp_attempt: recovery[3] });
    assert.equal(again.res.status, 401);
  });

  await t.step(
    "the OAuth sign-in asks for the code too, then goes back to the request",
    async () => {
      const app = await json(
        await instance.request("/api/v1/apps", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            client_name: "Two-factor test",
            redirect_uris: "urn:ietf:wg:oauth:2.0:oob",
            scopes: "read",
          }),
        }),
      );
      const fields = {
        client_id: app.client_id,
        redirect_uri: "urn:ietf:wg:oauth:2.0:oob",
        response_type: "code",
        scope: "read",
      };
      const jar = new Jar(instance);
      const form = await jar.get(`/oauth/authorize?${new URLSearchParams(fields)}`);
      assert.equal(form.res.status, 200);
      const step = await jar.post("/auth/sign_in", {
        ...fields,
        login: "tess",
        password: TEST_PASSWORD,
      });
      assert.equal(step.res.status, 303);
      assert.equal(step.res.headers.get("location"), "/auth/sign_in/otp");
      assert.ok(!jar.cookies.has("_rookery_session"));
      await jar.get("/auth/sign_in/otp");
      // (The TOTP steps of this half-minute are used up: codes are good once.)
      const ok = await jar.post("/auth/sign_in/otp", { otp_attempt: recovery[5] });
      assert.equal(ok.res.status, 303);
      const location = ok.res.headers.get("location")!;
      assert.ok(location.startsWith("/oauth/authorize?"), location);
      assert.equal(new URL(location, instance.origin).searchParams.get("client_id"), app.client_id);
    },
  );

  await t.step("turning it off needs the password and a code", async () => {
    await owner.get("/settings/otp_authentication");
    const wrongPassword = await owner.post("/settings/otp_authentication/disable", {
      password: "not the password",
      otp_attempt: recovery[0],
    });
    assert.equal(wrongPassword.res.status, 422);
    const wrongCode = await owner.post("/settings/otp_authentication/disable", {
      password: TEST_PASSWORD,
      otp_attempt: "999999",
    });
    assert.equal(wrongCode.res.status, 422);
    // Password guesses here count in the account's sign-in bucket (25 an hour).
    const config = instance.rookery.ctx.config as { rateLimits: boolean };
    config.rateLimits = true;
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 26; i++) {
        statuses.push(
          (await owner.post("/settings/otp_authentication/disable", {
            password: `guess ${i}`,
            otp_attempt: recovery[0],
          })).res.status,
        );
      }
      assert.deepEqual(statuses, [...Array(25).fill(422), 429]);
    } finally {
      config.rateLimits = false;
    }
    const ok = await owner.post("/settings/otp_authentication/disable", {
      password: TEST_PASSWORD,
      otp_attempt: recovery[0],
    });
    assert.equal(ok.res.status, 303);
    const jar = new Jar(instance);
    const direct = await passwordStep(jar, "/settings/sessions");
    assert.equal(direct.res.headers.get("location"), "/settings/sessions");
    assert.ok(jar.cookies.has("_rookery_session"));
  });

  await t.step("the confirmed password lasts an hour from its last use", async () => {
    // Confirmed on this session in the first step, and used since: set-up opens.
    const open = await owner.get("/settings/otp_authentication");
    assert.equal(open.res.status, 200);
    includes(open.text, "data-otp-secret");
    await db.update(webSessions)
      .set({ challengePassedAt: new Date(Date.now() - 61 * 60_000) })
      .where(eq(webSessions.userId, tess.userId));
    const asked = await owner.get("/settings/otp_authentication");
    includes(asked.text, "Confirm your password");
    assert.ok(!asked.text.includes("data-otp-secret"));
    const late = await owner.post("/settings/otp_authentication", { otp_attempt: "123456" });
    assert.equal(late.res.status, 403);
  });
});
