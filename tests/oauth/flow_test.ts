/**
 * The whole authorization code flow over real HTTP, as Elk or Phanpy run it:
 * register, open /oauth/authorize in a browser, sign in, consent, follow the
 * redirect, exchange the code (PKCE), use and revoke the token.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { hashSecret } from "../../actors/tokens.ts";
import { oauthAuthorizationCodes } from "../../db/schema.ts";
import { json, startInstance, test } from "../harness.ts";
import {
  authorizeInBrowser,
  authorizePath,
  bearer,
  Browser,
  createUser,
  formFields,
  PASSWORD,
  pkcePair,
  registerApp,
  tokenRequest,
} from "./helpers.ts";

const REDIRECT = "https://client.example/callback";

test("OAuth: the full authorization code flow with PKCE over HTTP", async (t) => {
  const a = await startInstance({ listen: true, worker: false });
  try {
    await createUser(a, "alice");
    const app = await registerApp(a, { redirect_uris: [REDIRECT, "elk://callback"] });
    const browser = new Browser(a);
    const { verifier, challenge } = await pkcePair();
    const authorize = {
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      response_type: "code",
      scope: "read+write profile",
      state: "xyz 123",
      code_challenge: challenge,
      code_challenge_method: "S256",
    };
    let token = "";

    await t.step("sign-in page, sign-in, consent, approve", async () => {
      const page = await browser.get(authorizePath(authorize));
      assert.equal(page.status, 200);
      assert.match(page.headers.get("content-type")!, /text\/html/);
      assert.equal(page.headers.get("x-frame-options"), "DENY");
      const html = await page.text();
      assert.match(html, /Test client/);
      const fields = formFields(html, "/auth/sign_in");
      assert.equal(fields.client_id, app.client_id);
      assert.equal(fields.state, "xyz 123");
      assert.equal(fields.scope, "read write profile");

      const signIn = await browser.post("/auth/sign_in", {
        ...fields,
        login: "alice@example.com",
        password: PASSWORD,
      });
      assert.equal(signIn.status, 303);
      const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith("_rookery_session="));
      assert.ok(cookie);
      assert.match(cookie, /HttpOnly/i);
      assert.match(cookie, /SameSite=Lax/i);
      assert.doesNotMatch(cookie, /Secure/i); // http origin in this test
      const consent = await browser.get(signIn.headers.get("location")!);
      assert.equal(consent.status, 200);
      const consentHtml = await consent.text();
      assert.match(consentHtml, /Authorize/);
      assert.match(consentHtml, /Deny/);
      assert.match(consentHtml, /@alice@/);
      assert.match(consentHtml, /Publish posts|Change all of your account/);

      const approve = await browser.post("/oauth/authorize", {
        ...formFields(consentHtml, "/oauth/authorize"),
        decision: "approve",
      });
      assert.equal(approve.status, 302);
      const location = new URL(approve.headers.get("location")!);
      assert.equal(location.origin + location.pathname, REDIRECT);
      assert.equal(location.searchParams.get("state"), "xyz 123");
      const code = location.searchParams.get("code")!;
      assert.ok(code);

      const res = await tokenRequest(a, {
        grant_type: "authorization_code",
        code,
        client_id: app.client_id,
        client_secret: app.client_secret,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("cache-control"), "no-store");
      const body = await json(res);
      assert.equal(body.token_type, "Bearer");
      assert.equal(body.scope, "read write profile");
      assert.equal(typeof body.created_at, "number");
      assert.ok(Math.abs(body.created_at - Date.now() / 1000) < 60);
      token = body.access_token;

      // The code is spent.
      const again = await tokenRequest(a, {
        grant_type: "authorization_code",
        code,
        client_id: app.client_id,
        client_secret: app.client_secret,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      });
      assert.equal(again.status, 400);
      assert.equal((await json(again)).error, "invalid_grant");
    });

    await t.step("the token works", async () => {
      const creds = await a.request("/api/v1/apps/verify_credentials", bearer(token));
      assert.equal(creds.status, 200);
      const entity = await json(creds);
      assert.equal(entity.id, app.id);
      assert.equal(entity.name, "Test client");
      assert.deepEqual(entity.redirect_uris, [REDIRECT, "elk://callback"]);
      assert.equal(entity.client_id, undefined);
      assert.equal(entity.client_secret, undefined);

      const info = await a.request("/oauth/userinfo", bearer(token));
      assert.equal(info.status, 200);
      const claims = await json(info);
      assert.equal(claims.iss, `${a.origin}/`);
      assert.equal(claims.sub, `${a.origin}/users/alice`);
      assert.equal(claims.preferred_username, "alice");
      assert.equal(claims.profile, `${a.origin}/@alice`);
      assert.match(claims.picture, /^http/);
      assert.equal(typeof claims.name, "string");
      const posted = await a.request("/oauth/userinfo", { method: "POST", ...bearer(token) });
      assert.equal(posted.status, 200);
    });

    await t.step("revocation: own token, again, another client's token", async () => {
      const other = await registerApp(a);
      const { access_token: otherToken } = await json(
        await tokenRequest(a, {
          grant_type: "client_credentials",
          client_id: other.client_id,
          client_secret: other.client_secret,
        }),
      );
      const revoke = (fields: Record<string, string>) =>
        a.request("/oauth/revoke", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(fields),
        });
      const foreign = await revoke({
        client_id: app.client_id,
        client_secret: app.client_secret,
        token: otherToken,
      });
      assert.equal(foreign.status, 403);
      assert.equal((await json(foreign)).error, "unauthorized_client");
      const unknown = await revoke({
        client_id: app.client_id,
        client_secret: app.client_secret,
        token: "no-such-token",
      });
      assert.equal(unknown.status, 403);
      const badClient = await revoke({
        client_id: app.client_id,
        client_secret: "wrong",
        token,
      });
      assert.equal(badClient.status, 401);
      assert.equal((await json(badClient)).error, "invalid_client");

      const own = { client_id: app.client_id, client_secret: app.client_secret, token };
      const first = await revoke(own);
      assert.equal(first.status, 200);
      assert.deepEqual(await json(first), {});
      const second = await revoke(own);
      assert.equal(second.status, 200);

      const after = await a.request("/api/v1/apps/verify_credentials", bearer(token));
      assert.equal(after.status, 401);
      assert.deepEqual(await json(after), { error: "The access token is invalid" });
      const info = await a.request("/oauth/userinfo", bearer(token));
      assert.equal(info.status, 401);
      // The other client's token still works.
      const still = await a.request("/api/v1/apps/verify_credentials", bearer(otherToken));
      assert.equal(still.status, 200);
    });

    await t.step("a second authorization reuses the session (consent directly)", async () => {
      const url = await authorizeInBrowser(browser, { ...authorize, state: "second" });
      assert.equal(url.searchParams.get("state"), "second");
      assert.ok(url.searchParams.get("code"));
    });

    await t.step("custom scheme redirect and fragment response mode", async () => {
      const url = await authorizeInBrowser(browser, {
        ...authorize,
        redirect_uri: "elk://callback",
      });
      assert.equal(url.protocol, "elk:");
      assert.ok(url.searchParams.get("code"));
      const frag = await authorizeInBrowser(browser, { ...authorize, response_mode: "fragment" });
      assert.equal(frag.search, "");
      const inFragment = new URLSearchParams(frag.hash.slice(1));
      assert.ok(inFragment.get("code"));
      assert.equal(inFragment.get("state"), "xyz 123");
    });

    await t.step("deny redirects with access_denied and the state", async () => {
      const page = await browser.get(authorizePath(authorize));
      const res = await browser.post("/oauth/authorize", {
        ...formFields(await page.text(), "/oauth/authorize"),
        decision: "deny",
      });
      assert.equal(res.status, 302);
      const url = new URL(res.headers.get("location")!);
      assert.equal(url.searchParams.get("error"), "access_denied");
      assert.equal(url.searchParams.get("state"), "xyz 123");
      assert.equal(url.searchParams.get("code"), null);
    });

    await t.step("approving without the session's CSRF token fails", async () => {
      const page = await browser.get(authorizePath(authorize));
      const fields = formFields(await page.text(), "/oauth/authorize");
      const forged = await browser.post("/oauth/authorize", {
        ...fields,
        authenticity_token: "forged",
        decision: "approve",
      });
      assert.equal(forged.status, 403);
      assert.equal(forged.headers.get("location"), null);
      const { authenticity_token: _, ...withoutToken } = fields;
      const missing = await browser.post("/oauth/authorize", { ...withoutToken });
      assert.equal(missing.status, 403);
      // Another browser (no session) posting the real token gets the sign-in page.
      const stranger = new Browser(a);
      const res = await stranger.post("/oauth/authorize", { ...fields, decision: "approve" });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /action="\/auth\/sign_in"/);
    });

    await t.step("force_login shows the sign-in page despite the session", async () => {
      const page = await browser.get(authorizePath({ ...authorize, force_login: "true" }));
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /action="\/auth\/sign_in"/);
      const fields = formFields(html, "/auth/sign_in");
      assert.equal(fields.force_login, undefined);
      const bob = await createUser(a, "bob");
      const signIn = await browser.post("/auth/sign_in", {
        ...fields,
        login: bob.username,
        password: PASSWORD,
      });
      assert.equal(signIn.status, 303);
      const consent = await browser.get(signIn.headers.get("location")!);
      assert.match(await consent.text(), /@bob@/);
    });

    await t.step("sign-out ends the session", async () => {
      const page = await browser.get(authorizePath(authorize));
      const html = await page.text();
      const res = await browser.post("/auth/sign_out", formFields(html, "/auth/sign_out"));
      assert.equal(res.status, 303);
      const next = await browser.get(res.headers.get("location")!);
      assert.match(await next.text(), /action="\/auth\/sign_in"/);
    });

    await t.step("the out-of-band flow shows the code on a page", async () => {
      const oob = await registerApp(a, { redirect_uris: "urn:ietf:wg:oauth:2.0:oob" });
      const fresh = new Browser(a);
      const params = {
        client_id: oob.client_id,
        redirect_uri: "urn:ietf:wg:oauth:2.0:oob",
        response_type: "code",
      };
      const url = await authorizeInBrowser(fresh, params, "alice");
      assert.equal(url.pathname, "/oauth/authorize/native");
      const code = url.searchParams.get("code")!;
      const page = await fresh.get(url.pathname + url.search);
      assert.equal(page.status, 200);
      assert.ok((await page.text()).includes(code));
      const res = await tokenRequest(a, {
        grant_type: "authorization_code",
        code,
        client_id: oob.client_id,
        client_secret: oob.client_secret,
        redirect_uri: "urn:ietf:wg:oauth:2.0:oob",
      });
      assert.equal(res.status, 200);
      assert.equal((await json(res)).scope, "read");
    });
  } finally {
    await a.close({ destroy: true });
  }
});

test("OAuth: code exchange failures", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    await createUser(a, "carol");
    const app = await registerApp(a);
    const other = await registerApp(a);
    const browser = new Browser(a);
    const { verifier, challenge } = await pkcePair();
    const base = { client_id: app.client_id, redirect_uri: REDIRECT, response_type: "code" };
    const newCode = async (pkce = true) => {
      const url = await authorizeInBrowser(
        browser,
        pkce ? { ...base, code_challenge: challenge, code_challenge_method: "S256" } : base,
        "carol",
      );
      return url.searchParams.get("code")!;
    };
    const exchange = (fields: Record<string, string | undefined>, headers = {}) =>
      tokenRequest(a, {
        grant_type: "authorization_code",
        client_id: app.client_id,
        client_secret: app.client_secret,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        ...fields,
      }, headers);
    const expectGrantError = async (res: Response) => {
      assert.equal(res.status, 400);
      const body = await json(res);
      assert.equal(body.error, "invalid_grant");
      assert.equal(typeof body.error_description, "string");
    };

    await t.step("wrong verifier, then the right one still works", async () => {
      const code = await newCode();
      await expectGrantError(await exchange({ code, code_verifier: (await pkcePair()).verifier }));
      assert.equal((await exchange({ code })).status, 200);
    });
    await t.step("missing verifier", async () => {
      await expectGrantError(await exchange({ code: await newCode(), code_verifier: undefined }));
    });
    await t.step("wrong redirect_uri", async () => {
      await expectGrantError(
        await exchange({ code: await newCode(), redirect_uri: "https://client.example/other" }),
      );
    });
    await t.step("expired code", async () => {
      const code = await newCode();
      const db = a.rookery.ctx.database.db;
      await db.update(oauthAuthorizationCodes).set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(oauthAuthorizationCodes.codeHash, await hashSecret(code)));
      await expectGrantError(await exchange({ code }));
    });
    await t.step("another client's code", async () => {
      const code = await newCode();
      await expectGrantError(
        await exchange({ code, client_id: other.client_id, client_secret: other.client_secret }),
      );
      // Not burnt by the attempt: its own client can still redeem it.
      assert.equal((await exchange({ code })).status, 200);
    });
    await t.step("unknown code and reused code", async () => {
      await expectGrantError(await exchange({ code: "nope" }));
      const code = await newCode();
      assert.equal((await exchange({ code })).status, 200);
      await expectGrantError(await exchange({ code }));
    });
    await t.step("codes are stored hashed", async () => {
      const code = await newCode();
      const rows = await a.rookery.ctx.database.db.select().from(oauthAuthorizationCodes);
      const hashed = await hashSecret(code);
      assert.ok(rows.every((r) => r.codeHash !== code));
      assert.ok(rows.some((r) => r.codeHash === hashed));
    });
    await t.step("wrong client secret, unknown client, no credentials", async () => {
      for (
        const fields of [
          { client_secret: "wrong" },
          { client_id: "unknown" },
          { client_id: undefined, client_secret: undefined },
        ]
      ) {
        const res = await exchange({ code: await newCode(), ...fields });
        assert.equal(res.status, 401);
        const body = await json(res);
        assert.equal(body.error, "invalid_client");
        assert.ok(body.error_description);
      }
    });
    await t.step("HTTP Basic client authentication", async () => {
      const basic = `Basic ${btoa(`${app.client_id}:${app.client_secret}`)}`;
      const res = await exchange(
        { code: await newCode(), client_id: undefined, client_secret: undefined },
        { authorization: basic },
      );
      assert.equal(res.status, 200);
      const wrong = await exchange(
        { code: await newCode(), client_id: undefined, client_secret: undefined },
        { authorization: `Basic ${btoa(`${app.client_id}:nope`)}` },
      );
      assert.equal(wrong.status, 401);
    });
    await t.step("JSON body, no PKCE", async () => {
      const code = await newCode(false);
      const res = await a.request("/oauth/token", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          grant_type: "authorization_code",
          code,
          client_id: app.client_id,
          client_secret: app.client_secret,
          redirect_uri: REDIRECT,
        }),
      });
      assert.equal(res.status, 200);
    });
    await t.step("unsupported grants", async () => {
      for (const grant of ["password", "refresh_token", "implicit"]) {
        const res = await tokenRequest(a, {
          grant_type: grant,
          client_id: app.client_id,
          client_secret: app.client_secret,
          username: "carol",
          password: PASSWORD,
        });
        assert.equal(res.status, 400);
        assert.equal((await json(res)).error, "unsupported_grant_type");
      }
      const none = await tokenRequest(a, { client_id: app.client_id });
      assert.equal(none.status, 400);
      assert.equal((await json(none)).error, "invalid_request");
    });
    await t.step("client_credentials: default, within, outside the app's scopes", async () => {
      const grant = (scope?: string) =>
        tokenRequest(a, {
          grant_type: "client_credentials",
          client_id: app.client_id,
          client_secret: app.client_secret,
          scope,
        });
      const plain = await json(await grant());
      assert.equal(plain.scope, "read");
      const token = plain.access_token;
      assert.equal((await a.request("/api/v1/apps/verify_credentials", bearer(token))).status, 200);
      // An app token is no user: userinfo needs one.
      const info = await a.request("/oauth/userinfo", bearer(token));
      assert.equal(info.status, 403); // read does not cover profile
      assert.equal(
        (await json(await grant("read:accounts write:statuses"))).scope,
        "read:accounts write:statuses",
      );
      const outside = await grant("admin:read");
      assert.equal(outside.status, 400);
      assert.equal((await json(outside)).error, "invalid_scope");
      assert.equal((await grant("push")).status, 400);
      assert.equal((await grant("bogus")).status, 400);
    });
  } finally {
    await a.close({ destroy: true });
  }
});

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
