/**
 * A reused authorization code (RFC 6749 4.1.2): the second exchange is
 * refused and the token issued from the first one is revoked, because a code
 * seen twice has leaked. Other tokens of the same user are left alone.
 */
import assert from "node:assert/strict";
import { json, startInstance, test } from "../harness.ts";
import {
  authorizeInBrowser,
  bearer,
  Browser,
  createUser,
  pkcePair,
  registerApp,
  tokenRequest,
} from "../oauth/helpers.ts";

const REDIRECT = "https://client.example/callback";

test("security: a reused OAuth code is refused and revokes the token it issued", async (t) => {
  const a = await startInstance({ worker: false });
  try {
    await createUser(a, "dora");
    const app = await registerApp(a);
    const browser = new Browser(a);
    const { verifier, challenge } = await pkcePair();
    const newCode = async () => {
      const url = await authorizeInBrowser(browser, {
        client_id: app.client_id,
        redirect_uri: REDIRECT,
        response_type: "code",
        code_challenge: challenge,
        code_challenge_method: "S256",
      }, "dora");
      return url.searchParams.get("code")!;
    };
    const exchange = (code: string) =>
      tokenRequest(a, {
        grant_type: "authorization_code",
        client_id: app.client_id,
        client_secret: app.client_secret,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        code,
      });
    const verify = async (token: string) =>
      (await a.request("/api/v1/accounts/verify_credentials", bearer(token))).status;

    await t.step("second exchange: 400 invalid_grant, first token now 401", async () => {
      const code = await newCode();
      const first = await exchange(code);
      assert.equal(first.status, 200);
      const token = (await json(first)).access_token;
      assert.equal(await verify(token), 200);
      // Another token of the same user, from its own code, must survive.
      const other = (await json(await exchange(await newCode()))).access_token;

      const again = await exchange(code);
      assert.equal(again.status, 400);
      assert.equal((await json(again)).error, "invalid_grant");
      assert.equal(await verify(token), 401);
      assert.equal(await verify(other), 200);
      // A third try changes nothing and still fails.
      assert.equal((await exchange(code)).status, 400);
      assert.equal(await verify(other), 200);
    });

    await t.step("two concurrent exchanges: one wins, and its token is revoked", async () => {
      const code = await newCode();
      const answers = await Promise.all([exchange(code), exchange(code)]);
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400]);
      const winner = answers.find((r) => r.status === 200)!;
      assert.equal(await verify((await json(winner)).access_token), 401);
    });
  } finally {
    await a.close({ destroy: true });
  }
});
