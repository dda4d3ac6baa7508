/**
 * Issue 29: a signed-in session is no way around the sign-in limits. Every
 * form that asks for the current password (e-mail and password change,
 * moving, deleting, turning two-factor sign-in off, the password asked
 * before setting it up) counts the guess in the
 * account's sign-in bucket, the one `POST /auth/sign_in` counts in (25 an
 * hour), so the 26th is refused wherever it is typed, the right password
 * too. Writes on the settings and staff pages count like API requests (300
 * per 5 minutes, per account, or per address without a session) and answer
 * the 429 page past it. A CSV import is refused before its body is read
 * while another runs, and past its cap (4 MiB).
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema/mod.ts";
import { IMPORT_IN_PROGRESS, MAX_IMPORT_BYTES } from "../../actors/import_export/import.ts";
import { TOO_MANY_GUESSES } from "../../web/routes/settings/password_guess.ts";
import { escapeHtml } from "../../actors/formatting/escape_html.ts";
import { afterAll, startInstance, test } from "../harness.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { includes, type PageSession, signInOverHttp } from "../admin_web/http_session.ts";

/** Mid-window for both the 5-minute and the hourly buckets. */
const PINNED = new Date("2030-01-07T10:02:30.000Z");
const instance = await startInstance({
  env: { RATE_LIMITS: "on", TRUST_PROXY: "true" },
  worker: false,
});
// Windows are computed from this instance's clock: pinned mid-window.
instance.rookery.ctx.core.rateLimits.clock = () => new Date(PINNED);
afterAll(async () => {
  await instance.close({ destroy: true });
});
const db = instance.rookery.ctx.database.db;

/** Posts `fields` as a form from the address `ip`, without a session. */
function anonymousPost(path: string, ip: string, fields: Record<string, string> = {}) {
  return instance.request(path, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip },
    body: new URLSearchParams(fields),
  });
}

/** A session's post that the gate counts and then refuses (no valid form token). */
async function forgedPost(session: PageSession, path: string): Promise<Response> {
  const res = await session.post(path, { authenticity_token: "forged" });
  await res.body?.cancel();
  return res;
}

test("every current-password form counts in the account's sign-in bucket", async () => {
  const guesser = await createUser(instance, "guesser");
  // The sign-in itself is the first attempt of the hour.
  const session = await signInOverHttp(instance, "guesser", "/settings/account");
  const forms: [string, Record<string, string>][] = [
    ["/settings/account/email", { email: "new@guesser.example", current_password: "guess" }],
    ["/settings/account/password", {
      current_password: "guess",
      password: "a new long password",
      password_confirmation: "a new long password",
    }],
    ["/settings/migration", { handle: "elsewhere@remote.example", current_password: "guess" }],
    ["/settings/delete", { password: "guess" }],
    ["/settings/otp_authentication/disable", { password: "guess", otp_attempt: "123456" }],
    ["/settings/otp_authentication/challenge", { current_password: "guess" }],
  ];
  // 24 wrong guesses spread over the six forms: 25 attempts with the sign-in.
  for (let i = 0; i < 24; i++) {
    const [path, fields] = forms[i % forms.length];
    const res = await session.post(path, fields);
    assert.equal(res.status, 422, `${path}, guess ${i + 1}`);
    await res.body?.cancel();
  }
  // The 26th is refused on every form, before the password is tested.
  for (const [path, fields] of forms) {
    const passwordField = "current_password" in fields ? "current_password" : "password";
    const res = await session.post(path, { ...fields, [passwordField]: TEST_PASSWORD });
    assert.equal(res.status, 429, path);
    assert.equal(res.headers.get("retry-after"), String(57 * 60 + 30), path);
    assert.equal(res.headers.get("x-ratelimit-limit"), "25");
    const html = await res.text();
    assert.ok(
      html.includes(escapeHtml(TOO_MANY_GUESSES)) || html.includes("Too many sign-in attempts"),
      `${path}: ${html.slice(0, 500)}`,
    );
  }
  const [row] = await db.select({ pending: users.unconfirmedEmail }).from(users)
    .where(eq(users.id, guesser.userId));
  assert.equal(row.pending, null, "nothing was changed");
  // The sign-in form shares the bucket: the right password is refused there too.
  await assert.rejects(signInOverHttp(instance, "guesser", "/settings/account"), /429/);
});

test("settings and staff writes are limited per account, per address without a session", async () => {
  const staff = await createUser(instance, "staffer");
  await db.update(users).set({ role: "admin" }).where(eq(users.id, staff.userId));
  const session = await signInOverHttp(instance, "staffer", "/admin");
  // One bucket for the account's page writes, on either kind of page.
  const first = await forgedPost(session, "/settings/sessions");
  assert.equal(first.status, 403);
  assert.equal(first.headers.get("x-ratelimit-limit"), "300");
  assert.equal(first.headers.get("x-ratelimit-remaining"), "299");
  const second = await forgedPost(session, "/admin/reports");
  assert.equal(second.headers.get("x-ratelimit-remaining"), "298");
  for (let i = 3; i <= 300; i++) {
    const res = await forgedPost(session, i % 2 ? "/settings/account/email" : "/admin/accounts");
    assert.equal(res.status, 403, `write ${i}`);
  }
  for (const path of ["/settings/account/email", "/admin/accounts"]) {
    const over = await session.post(path, { authenticity_token: "forged" });
    assert.equal(over.status, 429, path);
    assert.match(over.headers.get("content-type") ?? "", /text\/html/);
    assert.equal(over.headers.get("retry-after"), "150");
    assert.equal(over.headers.get("cache-control"), "private, no-store");
    includes(await over.text(), "Too many requests");
  }
  // The account's API calls share the bucket, as a token's requests do.
  const api = await instance.request("/api/v1/accounts/verify_credentials", {
    headers: { authorization: `Bearer ${staff.token}` },
  });
  assert.equal(api.status, 429);
  await api.body?.cancel();
  // Reading a page is not a write.
  const page = await session.get("/settings/account");
  assert.equal(page.status, 200);
  await page.body?.cancel();

  // Without a session, posts count per address.
  for (let i = 1; i <= 300; i++) {
    const res = await anonymousPost(i % 2 ? "/settings/delete" : "/admin", "203.0.113.50");
    assert.equal(res.status, 403, `anonymous write ${i}`);
    await res.body?.cancel();
  }
  const over = await anonymousPost("/settings/delete", "203.0.113.50");
  assert.equal(over.status, 429);
  includes(await over.text(), "Too many requests");
  const elsewhere = await anonymousPost("/settings/delete", "203.0.113.51");
  assert.equal(elsewhere.status, 403);
  await elsewhere.body?.cancel();
});

test("an import is refused before its body is read: one at a time, at most 4 MiB", async () => {
  await createUser(instance, "importer");
  const session = await signInOverHttp(instance, "importer", "/settings/import");
  const upload = (body: BodyInit, headers: Record<string, string> = {}) =>
    instance.request("/settings/import", {
      method: "POST",
      redirect: "manual",
      headers: { cookie: session.cookie, ...headers },
      body,
      duplex: "half",
    } as RequestInit);
  const form = (bytes: number) => {
    const data = new FormData();
    data.set("authenticity_token", session.token);
    data.set("type", "domain_blocking");
    data.set("data", new File(["a.example\n".padEnd(bytes, "b")], "blocks.csv"));
    return data;
  };
  /** A body that notes whether anyone read it. */
  const watched = () => {
    const seen = { pulled: 0 };
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        seen.pulled++;
        controller.enqueue(new Uint8Array(64 * 1024));
        if (seen.pulled > 200) controller.close();
      },
    }, { highWaterMark: 0 });
    return { seen, stream };
  };

  // Over the cap: 413, whether the size is declared or not.
  const big = await upload(form(MAX_IMPORT_BYTES + 1));
  assert.equal(big.status, 413);
  includes(await big.text(), "larger than 4 MB");
  const undeclared = watched();
  const streamed = await upload(undeclared.stream, {
    "content-type": "multipart/form-data; boundary=x",
  });
  assert.equal(streamed.status, 413);
  await streamed.body?.cancel();
  assert.ok(undeclared.seen.pulled <= 66, `read ${undeclared.seen.pulled} chunks of 64 KiB`);

  const accepted = await upload(form(1000));
  assert.equal(accepted.status, 303, await accepted.text());
  // The worker is off: that import stays unfinished, and the next file is not read.
  const next = watched();
  const refused = await upload(next.stream, {
    "content-type": "multipart/form-data; boundary=x",
  });
  assert.equal(refused.status, 422);
  includes(await refused.text(), escapeHtml(IMPORT_IN_PROGRESS));
  assert.equal(next.seen.pulled, 0, "the body was never read");
});
