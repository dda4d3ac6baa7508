/**
 * The whole authorization code flow over real HTTP, as Elk or Phanpy run it:
 * register, open /oauth/authorize in a browser, sign in, consent, follow the
 * redirect, exchange the code (PKCE), use and revoke the token.
 */
import assert from "node:assert/strict";
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

      // The code is spent: exchanging it again would be refused and would revoke
      // this token (tests/security/oauth_code_reuse_test.ts), which the next steps use.
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
