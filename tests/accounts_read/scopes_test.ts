/**
 * Tokens on the account-reading routes: the shared matrix for the user
 * routes, and Mastodon's "public, but a token that comes must fit" rule for
 * the others.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { assertScopeMatrix, scopeFixtures } from "../oauth/scope_matrix.ts";
import { fixtures } from "./helpers.ts";

test("account reading: scope matrix of the user routes", async (t) => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const target = await f.user("matrixtarget");
    const send = (path: string, init: RequestInit) => instance.request(path, init);
    await assertScopeMatrix(t, send, await scopeFixtures(instance), [
      {
        method: "GET",
        path: "/api/v1/accounts/search?q=matrix",
        kind: "user",
        scopes: ["read:accounts"],
      },
      {
        method: "GET",
        path: `/api/v1/accounts/familiar_followers?id[]=${target.accountId}`,
        kind: "user",
        scopes: ["read:follows"],
      },
      {
        method: "GET",
        path: `/api/v1/accounts/${target.accountId}/lists`,
        kind: "user",
        scopes: ["read:lists"],
      },
    ]);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("account reading: public routes check a token's scopes only when one is sent", async () => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const owner = await f.user("publicowner");
    const id = owner.accountId;
    const readAccounts = [
      `/api/v1/accounts/${id}`,
      `/api/v1/accounts?id[]=${id}`,
      `/api/v1/accounts/lookup?acct=publicowner`,
      `/api/v1/accounts/${id}/followers`,
      `/api/v1/accounts/${id}/following`,
      `/api/v1/accounts/${id}/endorsements`,
    ];
    const writeOnly = await owner.token(["write"]);
    const profileOnly = await owner.token(["profile"]);
    for (const path of readAccounts) {
      assert.equal((await f.get(path)).status, 200, `${path} anonymous`);
      assert.equal((await f.get(path, "not-a-token")).status, 200, `${path} unknown token`);
      for (const scopes of [["read"], ["read:accounts"]]) {
        assert.equal((await f.get(path, await owner.token(scopes))).status, 200, path);
      }
      assert.equal((await f.get(path, await f.appToken(["read"]))).status, 200, `${path} app`);
      for (const token of [writeOnly, profileOnly]) {
        const refused = await f.get(path, token);
        assert.equal(refused.status, 403, `${path} without read`);
        assert.deepEqual(refused.body, { error: "This action is outside the authorized scopes" });
      }
    }
    // Featured tags take any token, as Mastodon's controller checks none.
    const tags = `/api/v1/accounts/${id}/featured_tags`;
    assert.equal((await f.get(tags)).status, 200);
    assert.equal((await f.get(tags, writeOnly)).status, 200);
  } finally {
    await instance.close({ destroy: true });
  }
});
