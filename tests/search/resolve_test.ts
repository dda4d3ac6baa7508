/**
 * GET /api/v2/search with resolve=true between two instances, over https and
 * over plain http:
 * a handle through WebFinger, an actor URL, a status's page URL and IRI
 * fetched and stored, and the full-text index following the remote status
 * through its edit and its delete.
 */
import assert from "node:assert/strict";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { type Caller, callJson, ok, postStatus } from "../fixtures/api.ts";
import { closeAll, followRemote, startPair } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

test("search resolve=true over https: handle, actor URL, status URL and IRI; remote edits and deletes", async (t) => {
  const { a, b } = await startPair();
  try {
    await resolveBetween(t, a, b);
  } finally {
    await closeAll(b, a);
  }
});

test("search resolve=true over plain http: the same between two http servers", async (t) => {
  const a = await startInstance({ listen: true });
  const b = await startInstance({ listen: true, originHost: "127.0.0.1" });
  try {
    assert.match(a.origin, /^http:/);
    await resolveBetween(t, a, b);
  } finally {
    await closeAll(b, a);
  }
});

/** B resolves A's user and post, and follows the post's edit and delete in its index. */
async function resolveBetween(t: Deno.TestContext, a: TestInstance, b: TestInstance) {
  {
    const alice = await createUser(a, "alice");
    const [bob, carol] = await Promise.all([createUser(b, "bob"), createUser(b, "carol")]);
    const onB = (who: Caller, query: string) => callJson(b, who, "GET", `/api/v2/search?${query}`);
    const resolve = (q: string, extra = "") =>
      onB(bob, `resolve=true&q=${encodeURIComponent(q)}${extra}`);
    const words = async (q: string) =>
      (await onB(carol, `type=statuses&q=${encodeURIComponent(q)}`)).body.statuses
        .map((s: { uri: string }) => s.uri);

    // Each instance makes its actor's RSA keys on first use, which takes seconds on a
    // loaded machine; the first signed fetch would wait for them within its deadline.
    for (const instance of [a, b]) {
      const res = await instance.request("/actor", {
        headers: { accept: "application/activity+json" },
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    const otter = await postStatus(a, alice, "A federated otter swims by");
    const secret = await postStatus(a, alice, "A private otter", { visibility: "private" });

    await t.step("a handle resolves through WebFinger", async () => {
      // Unknown on B before: nothing without resolve.
      const before = await onB(bob, `q=${encodeURIComponent(`@alice@${a.domain}`)}`);
      assert.deepEqual(before.body.accounts, []);
      const res = await resolve(`@alice@${a.domain}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.accounts.length, 1);
      assert.equal(res.body.accounts[0].acct, `alice@${a.domain}`);
      assert.equal(res.body.accounts[0].uri, `${a.origin}/users/alice`);
      assert.deepEqual(res.body.statuses, [], "a bare handle searches no statuses");
    });

    await t.step("an actor URL and a profile page resolve to the account", async () => {
      for (const url of [`${a.origin}/users/alice`, `${a.origin}/@alice`]) {
        const res = await resolve(url);
        assert.equal(res.status, 200);
        assert.deepEqual(res.body.accounts.map((x: { acct: string }) => x.acct), [
          `alice@${a.domain}`,
        ]);
        assert.deepEqual(res.body.statuses, []);
      }
    });

    await t.step("a status's page URL is fetched, stored and answered", async () => {
      assert.deepEqual(await words("otter"), [], "B does not know the status yet");
      const res = await resolve(otter.url);
      assert.equal(res.status, 200);
      assert.equal(res.body.statuses.length, 1);
      const found = res.body.statuses[0];
      assert.equal(found.uri, otter.uri);
      assert.equal(found.account.acct, `alice@${a.domain}`);
      assert.match(found.content, /federated otter/);
      assert.deepEqual(res.body.accounts, []);
      // By its IRI: the stored copy, the same id.
      const again = await resolve(otter.uri);
      assert.deepEqual(again.body.statuses.map((s: { id: string }) => s.id), [found.id]);
      // With type=accounts, a status URL gives nothing.
      const typed = await resolve(otter.uri, "&type=accounts");
      assert.deepEqual(typed.body.accounts, []);
      assert.deepEqual(typed.body.statuses, []);
      // Stored and indexed: anyone on B finds it by its words (alice is indexable).
      assert.deepEqual(await words("otter"), [otter.uri]);
    });

    await t.step("what cannot be fetched resolves to nothing", async () => {
      const priv = await resolve(secret.url);
      assert.equal(priv.status, 200);
      assert.deepEqual(priv.body.statuses, []);
      const missing = await resolve(`${a.origin}/users/alice/statuses/1`);
      assert.equal(missing.status, 200);
      assert.deepEqual(missing.body, { accounts: [], statuses: [], hashtags: [] });
      const nobody = await resolve(`@nobody@${a.domain}`);
      assert.deepEqual(nobody.body.accounts, []);
    });

    await t.step("the index follows the remote status's edit and delete", async () => {
      await followRemote(b, bob, a, alice);
      await ok(a, alice, "PUT", `/api/v1/statuses/${otter.id}`, {
        status: "A federated beaver builds a dam",
      });
      await eventually("the edit indexed on B", async () => (await words("beaver")).length === 1);
      assert.deepEqual(await words("otter"), []);
      await ok(a, alice, "DELETE", `/api/v1/statuses/${otter.id}`);
      await eventually("the delete indexed on B", async () => (await words("beaver")).length === 0);
    });
  }
}
