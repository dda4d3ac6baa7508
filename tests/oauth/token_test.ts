/** POST /oauth/token: every way a code exchange or a client can be wrong. */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { hashSecret } from "../../actors/oauth/tokens.ts";
import { oauthAuthorizationCodes } from "../../db/schema/mod.ts";
import { json, startInstance, test } from "../harness.ts";
import {
  authorizeInBrowser,
  bearer,
  Browser,
  createUser,
  PASSWORD,
  pkcePair,
  registerApp,
  tokenRequest,
} from "./helpers.ts";

const REDIRECT = "https://client.example/callback";

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
    await t.step("a NUL byte in a parameter is a 400 from the parser", async () => {
      const res = await exchange({ code: await newCode(), client_id: "\u0000" });
      assert.equal(res.status, 400);
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
