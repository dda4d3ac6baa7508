/**
 * GET /oauth/authorize validation, sign-in failures, refused logins, the
 * metadata document and the sign-in rate limit.
 */
import assert from "node:assert/strict";
import { json, startInstance, test } from "../harness.ts";
import {
  authorizePath,
  Browser,
  createUser,
  formFields,
  PASSWORD,
  pkcePair,
  registerApp,
} from "./helpers.ts";

const REDIRECT = "https://client.example/callback";

test("OAuth: authorize request validation", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    await createUser(a, "dave");
    const app = await registerApp(a, { scopes: "read write" });
    const browser = new Browser(a);
    const base = {
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      state: "s1",
    };
    const expectRedirectError = async (params: Record<string, string>, error: string) => {
      const res = await browser.get(authorizePath({ ...base, ...params }));
      assert.equal(res.status, 302, `${JSON.stringify(params)} → ${res.status}`);
      const url = new URL(res.headers.get("location")!);
      assert.equal(url.origin + url.pathname, REDIRECT);
      assert.equal(url.searchParams.get("error"), error);
      assert.equal(url.searchParams.get("state"), "s1");
    };
    const expectErrorPage = async (params: Record<string, string | undefined>) => {
      const res = await browser.get(authorizePath({ ...base, ...params }));
      assert.equal(res.status, 400);
      assert.equal(res.headers.get("location"), null);
      assert.match(res.headers.get("content-type")!, /text\/html/);
      assert.match(await res.text(), /An error has occurred/);
    };

    await t.step("unknown or missing client → error page, no redirect", async () => {
      await expectErrorPage({ client_id: "unknown" });
      await expectErrorPage({ client_id: undefined });
      await expectErrorPage({ client_id: "\u0000" });
    });
    await t.step("unregistered or missing redirect_uri → error page", async () => {
      await expectErrorPage({ redirect_uri: "https://evil.example/callback" });
      await expectErrorPage({ redirect_uri: `${REDIRECT}/more` });
      await expectErrorPage({ redirect_uri: undefined });
    });
    await t.step("redirected errors", async () => {
      await expectRedirectError({ response_type: "token" }, "unsupported_response_type");
      await expectRedirectError({ scope: "follow" }, "invalid_scope");
      await expectRedirectError({ scope: "read admin:read" }, "invalid_scope");
      await expectRedirectError({ scope: "bogus" }, "invalid_scope");
      await expectRedirectError({
        code_challenge: (await pkcePair()).challenge,
        code_challenge_method: "plain",
      }, "invalid_request");
      await expectRedirectError(
        { code_challenge: (await pkcePair()).challenge },
        "invalid_request",
      );
      await expectRedirectError({ response_mode: "form_post" }, "invalid_request");
    });
    await t.step("granular scopes within registered ones are fine", async () => {
      const res = await browser.get(authorizePath({ ...base, scope: "read:accounts write" }));
      assert.equal(res.status, 200);
      const fields = formFields(await res.text(), "/auth/sign_in");
      assert.equal(fields.scope, "read:accounts write");
    });
    await t.step("an OOB client's errors are shown, not redirected", async () => {
      const oob = await registerApp(a, { redirect_uris: "urn:ietf:wg:oauth:2.0:oob" });
      const res = await browser.get(authorizePath({
        client_id: oob.client_id,
        redirect_uri: "urn:ietf:wg:oauth:2.0:oob",
        response_type: "code",
        scope: "admin:write",
      }));
      assert.equal(res.status, 400);
      assert.match(await res.text(), /invalid_scope/);
    });
    await t.step("values are escaped in the pages", async () => {
      const evil = await registerApp(a, { client_name: `<script>alert("x")</script>` });
      const res = await browser.get(authorizePath({
        client_id: evil.client_id,
        redirect_uri: REDIRECT,
        response_type: "code",
        state: `"><img src=x onerror=alert(1)>`,
      }));
      const html = await res.text();
      assert.ok(!html.includes("<script>alert"));
      assert.ok(!html.includes("<img src=x"));
      assert.ok(html.includes("&lt;script&gt;"));
    });
  } finally {
    await a.close({ destroy: true });
  }
});

test("OAuth: sign-in failures and refused logins", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    await createUser(a, "erin");
    await createUser(a, "frank", "disabled");
    await createUser(a, "gina", "unconfirmed");
    await createUser(a, "hank", "pending");
    const app = await registerApp(a);
    const params = { client_id: app.client_id, redirect_uri: REDIRECT, response_type: "code" };
    const attempt = async (login: string, password: string, browser = new Browser(a)) => {
      const page = await browser.get(authorizePath(params));
      const fields = formFields(await page.text(), "/auth/sign_in");
      const res = await browser.post("/auth/sign_in", { ...fields, login, password });
      return { res, html: res.status === 303 ? "" : await res.text(), browser };
    };

    await t.step("wrong password and unknown user get the same message", async () => {
      const wrong = await attempt("erin", "not the password");
      const unknown = await attempt("nobody@example.com", "whatever password");
      assert.equal(wrong.res.status, 401);
      assert.equal(unknown.res.status, 401);
      for (const { html, res } of [wrong, unknown]) {
        assert.match(html, /Invalid e-mail address or password\./);
        assert.match(html, /action="\/auth\/sign_in"/);
        assert.ok(!res.headers.getSetCookie().some((c) => c.startsWith("_rookery_session=")));
      }
      assert.match(wrong.html, /value="erin"/); // the login is kept, the password is not
      // A NUL byte never reaches the sign-in check: the parser refuses it.
      assert.equal((await attempt("erin\u0000", PASSWORD)).res.status, 400);
    });
    await t.step("refused logins", async () => {
      const cases = [
        ["frank", "Your login is currently disabled"],
        ["gina@example.com", "Your login is missing a confirmed e-mail address"],
        ["hank", "Your login is currently pending approval"],
      ];
      for (const [login, message] of cases) {
        const { res, html } = await attempt(login, PASSWORD);
        assert.equal(res.status, 403, login);
        assert.ok(html.includes(message), `${login}: ${html}`);
      }
      // Their wrong passwords reveal nothing about their state.
      const { html } = await attempt("frank", "wrong password");
      assert.match(html, /Invalid e-mail address or password/);
    });
    await t.step("a sign-in post without the form's cookie token is refused", async () => {
      const browser = new Browser(a);
      const page = await browser.get(authorizePath(params));
      const fields = formFields(await page.text(), "/auth/sign_in");
      const stranger = new Browser(a); // another site's form: no cookie of ours
      const res = await stranger.post("/auth/sign_in", {
        ...fields,
        login: "erin",
        password: PASSWORD,
      });
      assert.equal(res.status, 403);
      assert.ok(!res.headers.getSetCookie().some((c) => c.startsWith("_rookery_session=")));
    });
    await t.step("case-insensitive username and e-mail work", async () => {
      assert.equal((await attempt("ERIN", PASSWORD)).res.status, 303);
      assert.equal((await attempt("Erin@Example.com", PASSWORD)).res.status, 303);
    });
  } finally {
    await a.close({ destroy: true });
  }
});

test("OAuth: authorization server metadata is served", async () => {
  const a = await startInstance({ worker: false });
  try {
    const res = await a.request("/.well-known/oauth-authorization-server");
    assert.equal(res.status, 200);
    const body = await json(res);
    assert.equal(body.issuer, `${a.origin}/`);
    assert.equal(body.authorization_endpoint, `${a.origin}/oauth/authorize`);
    assert.equal(body.token_endpoint, `${a.origin}/oauth/token`);
    assert.equal(body.revocation_endpoint, `${a.origin}/oauth/revoke`);
    assert.equal(body.userinfo_endpoint, `${a.origin}/oauth/userinfo`);
    assert.equal(body.app_registration_endpoint, `${a.origin}/api/v1/apps`);
    assert.deepEqual(body.grant_types_supported, ["authorization_code", "client_credentials"]);
    assert.deepEqual(body.code_challenge_methods_supported, ["S256"]);
    assert.deepEqual(body.response_types_supported, ["code"]);
    assert.ok(body.scopes_supported.includes("read:accounts"));
    assert.ok(body.scopes_supported.includes("profile"));
    assert.ok(body.scopes_supported.includes("admin:write:reports"));
    assert.deepEqual(body.token_endpoint_auth_methods_supported, [
      "client_secret_basic",
      "client_secret_post",
    ]);
  } finally {
    await a.close({ destroy: true });
  }
});

test("OAuth: sign-in attempts count against the per-IP rate limit", async () => {
  const a = await startInstance({ worker: false, env: { RATE_LIMITS: "on" } });
  try {
    const app = await registerApp(a);
    const res = await a.request("/auth/sign_in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_id: app.client_id,
        redirect_uri: REDIRECT,
        response_type: "code",
        login: "nobody",
        password: "x",
      }).toString(),
    });
    assert.equal(res.status, 403); // no form token cookie
    await res.body?.cancel();
    // The tighter of the two buckets it counts in: sign-in attempts per IP
    // (25 per 5 minutes, as Mastodon's rack-attack) within the general 300.
    assert.equal(res.headers.get("x-ratelimit-limit"), "25");
    assert.equal(res.headers.get("x-ratelimit-remaining"), "24");
  } finally {
    await a.close({ destroy: true });
  }
});

test("OAuth: cookies are Secure on an https origin", async () => {
  const a = await startInstance({ tls: true, worker: false });
  try {
    await createUser(a, "ivan");
    const app = await registerApp(a);
    const browser = new Browser(a);
    const page = await browser.get(authorizePath({
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
    }));
    const csrf = page.headers.getSetCookie().find((c) => c.startsWith("_rookery_csrf="));
    assert.ok(csrf);
    assert.match(csrf, /; Secure/i);
    assert.match(csrf, /HttpOnly/i);
    const res = await browser.post("/auth/sign_in", {
      ...formFields(await page.text(), "/auth/sign_in"),
      login: "ivan",
      password: PASSWORD,
    });
    assert.equal(res.status, 303);
    await res.body?.cancel();
    const session = res.headers.getSetCookie().find((c) => c.startsWith("_rookery_session="));
    assert.ok(session);
    assert.match(session, /; Secure/i);
    assert.match(session, /SameSite=Lax/i);
  } finally {
    await a.close({ destroy: true });
  }
});
