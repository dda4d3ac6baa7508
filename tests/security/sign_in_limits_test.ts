/**
 * Sign-in brute force, as Mastodon's Rack::Attack throttles it: 25 attempts
 * per 5 minutes per IP (an IPv6 client with its /64), failed or successful,
 * and 25 per hour per account whatever the IP. Past either limit the answer
 * is 429 with Retry-After and X-RateLimit-*: the sign-in page to a browser,
 * Mastodon's `{"error": "Too many requests"}` to anything else. The IPs come
 * from X-Forwarded-For behind a trusted proxy on loopback.
 */
import assert from "node:assert/strict";
import { TOO_MANY_ATTEMPTS } from "../../web/routes/auth/sign_in.ts";
import { SESSION_COOKIE } from "../../web/routes/auth/authorize_request.ts";
import { escapeHtml } from "../../actors/formatting/escape_html.ts";
import { json, startInstance, test } from "../harness.ts";
import {
  authorizePath,
  Browser,
  createUser,
  formFields,
  PASSWORD,
  registerApp,
} from "../oauth/helpers.ts";

/** Mid-window for both the 5-minute and the hourly buckets. */
const PINNED = new Date("2030-01-07T10:02:30.000Z");

test("sign-in limits: 25 attempts per IP per 5 minutes, 25 per account per hour", async (t) => {
  const a = await startInstance({
    env: { RATE_LIMITS: "on", TRUST_PROXY: "true" },
    worker: false,
  });
  // Windows are computed from this instance's clock: pinned mid-window.
  a.rookery.ctx.core.rateLimits.clock = () => new Date(PINNED);
  try {
    for (const name of ["alice", "bob", "carol"]) await createUser(a, name);
    const app = await registerApp(a);
    const authorize = authorizePath({
      client_id: app.client_id,
      redirect_uri: app.redirect_uris[0],
      response_type: "code",
      scope: "read",
    });

    /** A browser holding a sign-in form, whose attempts come from `ip`. */
    const signInForm = async () => {
      const browser = new Browser(a);
      const page = await browser.get(authorize);
      assert.equal(page.status, 200);
      const fields = formFields(await page.text(), "/auth/sign_in");
      return (ip: string, login: string, password: string, accept = "text/html") =>
        browser.request("/auth/sign_in", {
          method: "POST",
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            "x-forwarded-for": ip,
            accept,
          },
          body: new URLSearchParams({ ...fields, login, password }).toString(),
        });
    };

    await t.step("of 100 attempts from one IP, 25 are checked and 75 refused", async () => {
      // A successful sign-in counts as an attempt too.
      const success = await (await signInForm())("203.0.113.7", "alice", PASSWORD);
      assert.equal(success.status, 303);
      const attempt = await signInForm();
      const statuses: number[] = [success.status];
      let first429: Response | null = null;
      for (let i = 2; i <= 100; i++) {
        // A different unknown login each time: only the IP's bucket can stop them.
        const res = await attempt("203.0.113.7", `nobody${i}@example.com`, "guess");
        statuses.push(res.status);
        if (res.status === 429 && !first429) first429 = res;
        else await res.body?.cancel();
      }
      assert.equal(statuses.filter((s) => s !== 429).length, 25, statuses.join(","));
      assert.deepEqual(statuses.slice(25), Array(75).fill(429));
      assert.ok(first429);
      assert.match(first429.headers.get("content-type") ?? "", /text\/html/);
      assert.match(await first429.text(), /Too many/);
      assert.equal(first429.headers.get("retry-after"), "150");
      assert.equal(first429.headers.get("x-ratelimit-limit"), "25");
      assert.equal(first429.headers.get("x-ratelimit-remaining"), "0");
      assert.equal(first429.headers.get("x-ratelimit-reset"), "2030-01-07T10:05:00.000Z");

      // A client that is not a browser gets Mastodon's JSON.
      const api = await attempt("203.0.113.7", "alice", PASSWORD, "application/json");
      assert.equal(api.status, 429);
      assert.deepEqual(await json(api), { error: "Too many requests" });
      assert.equal(api.headers.get("retry-after"), "150");

      // Another address is not affected.
      const other = await attempt("203.0.113.8", "alice", "wrong");
      assert.equal(other.status, 401);
      await other.body?.cancel();
    });

    await t.step("addresses of one IPv6 /64 share the sign-in bucket", async () => {
      const attempt = await signInForm();
      for (let i = 1; i <= 25; i++) {
        const res = await attempt(`2001:db8:5:5::${i.toString(16)}`, `v6user${i}`, "guess");
        assert.equal(res.status, 401, `attempt ${i}`);
        await res.body?.cancel();
      }
      const over = await attempt("2001:db8:5:5:ffff::1", "v6user26", "guess");
      assert.equal(over.status, 429);
      await over.body?.cancel();
      const nextNetwork = await attempt("2001:db8:5:6::1", "v6user27", "guess");
      assert.equal(nextNetwork.status, 401);
      await nextNetwork.body?.cancel();
    });

    await t.step("25 attempts per account per hour, across IPs and login spellings", async () => {
      const attempt = await signInForm();
      for (let i = 1; i <= 25; i++) {
        // The username and the e-mail address name the same account.
        const login = i % 2 ? "bob" : "BOB@example.com";
        const res = await attempt(`198.51.100.${i}`, login, "guess");
        assert.equal(res.status, 401, `attempt ${i}`);
        await res.body?.cancel();
      }
      // Even the right password from a fresh address is refused now.
      const over = await attempt("198.51.100.200", "bob", PASSWORD);
      assert.equal(over.status, 429);
      const page = await over.text();
      assert.ok(page.includes(escapeHtml(TOO_MANY_ATTEMPTS)), page);
      assert.ok(page.includes('action="/auth/sign_in"'), "the form is shown again");
      assert.equal(over.headers.get("x-ratelimit-limit"), "25");
      assert.equal(over.headers.get("retry-after"), String(57 * 60 + 30));
      assert.ok(!over.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`)));
      const api = await attempt("198.51.100.201", "bob@example.com", PASSWORD, "*/*");
      assert.equal(api.status, 429);
      assert.deepEqual(await json(api), { error: "Too many requests" });

      // Another account, from an address bob's guesses came from, is fine.
      const carol = await attempt("198.51.100.1", "carol", PASSWORD);
      assert.equal(carol.status, 303);
    });
  } finally {
    await a.close({ destroy: true });
  }
});
