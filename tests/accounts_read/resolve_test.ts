/**
 * GET /api/v1/accounts/search?resolve=true across two instances over https:
 * B finds alice of A through WebFinger and a signed fetch, and keeps her;
 * blocked, her full handle still finds her (to unblock her).
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { fixtures, ids } from "./helpers.ts";

test("accounts/search resolve=true: WebFinger finds and stores a remote account", async () => {
  const a = await startInstance({ tls: true });
  const b = await startInstance({ tls: true });
  try {
    const fa = fixtures(a);
    const fb = fixtures(b);
    const alice = await fa.user("alice");
    await fa.update(alice.accountId, { displayName: "Alice of A" });
    const bob = await fb.user("bob");
    const token = await bob.token(["read:accounts"]);
    const handle = `alice@${a.domain}`;
    const search = (extra: string) =>
      fb.get(`/api/v1/accounts/search?q=${encodeURIComponent(handle)}${extra}`, token);

    // Without resolve, B knows no alice; lookup never asks the network either.
    assert.deepEqual((await search("")).body, []);
    assert.equal(
      (await fb.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(handle)}`)).status,
      404,
    );

    const found = await search("&resolve=true");
    assert.equal(found.status, 200);
    assert.equal(found.body.length, 1);
    const remote = found.body[0];
    assert.equal(remote.username, "alice");
    assert.equal(remote.acct, handle);
    assert.equal(remote.display_name, "Alice of A");
    assert.equal(remote.uri, `${a.origin}/users/alice`);
    assert.notEqual(remote.id, alice.accountId, "B's own id for the stored row");

    // Stored: found again without resolve, by lookup, and by id.
    assert.deepEqual(ids((await search("")).body), [remote.id]);
    assert.deepEqual(
      ids((await fb.get(`/api/v1/accounts/search?q=ali`, token)).body),
      [remote.id],
    );
    const looked = await fb.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(handle)}`);
    assert.equal(looked.body.id, remote.id);
    assert.equal((await fb.get(`/api/v1/accounts/${remote.id}`)).body.acct, handle);

    // Blocked, she is still found by her full handle, as a client's
    // `unblock alice@host` asks (Mastodon's exact match ignores blocks).
    await fb.block(bob.accountId, remote.id);
    const unblockSearch = await fb.get(
      `/api/v2/search?q=${encodeURIComponent(handle)}&type=accounts&resolve=true`,
      await bob.token(["read"]),
    );
    assert.equal(unblockSearch.status, 200);
    assert.deepEqual(ids(unblockSearch.body.accounts), [remote.id]);
    assert.deepEqual(ids((await search("&resolve=true")).body), [remote.id]);
    assert.deepEqual(ids((await search("")).body), [remote.id]);
    const lookedUp = await fb.get(
      `/api/v1/accounts/lookup?acct=${encodeURIComponent(`@${handle}`)}`,
      token,
    );
    assert.equal(lookedUp.body.id, remote.id);
    assert.deepEqual((await fb.get("/api/v1/accounts/search?q=ali", token)).body, []);

    // An unknown user on A resolves to nothing, without an error.
    const nobody = await fb.get(
      `/api/v1/accounts/search?q=${encodeURIComponent(`nobody@${a.domain}`)}&resolve=true`,
      token,
    );
    assert.equal(nobody.status, 200);
    assert.deepEqual(nobody.body, []);
  } finally {
    await b.close({ destroy: true });
    await a.close({ destroy: true });
  }
});
