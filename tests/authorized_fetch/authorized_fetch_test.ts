/**
 * Authorized-fetch mode (AUTHORIZED_FETCH=true) against a second instance
 * and an unsigned client. A runs in that mode, B does not; one pair serves
 * every step (each step fails when the mode is off or its check is gone).
 */
import assert from "node:assert/strict";
import { signRequest } from "@fedify/fedify";
import { getKeyPairs, INSTANCE_KEY_OWNER } from "../../federation/dispatchers/keys.ts";
import { instanceContext } from "../../federation/fetch/lookup.ts";
import { resolveRemoteStatus } from "../../federation/remote/statuses.ts";
import { FetchBudget } from "../../federation/fetch/budget.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { arrived, closeAll, followRemote, startPair } from "../fixtures/federation.ts";
import { call, callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

const AP = "application/activity+json";
const API_ERROR = "This API requires an authenticated user";

interface Seen {
  method: string;
  path: string;
  signature: string | null;
}

/** A GET of `url` signed with the key `owner` has on `from` (the instance actor by default). */
async function signedGet(
  from: TestInstance,
  url: string,
  signer: { owner: string; keyId: string } = {
    owner: INSTANCE_KEY_OWNER,
    keyId: `${from.origin}/actor#main-key`,
  },
  signedUrl = url,
): Promise<Response> {
  const [rsa] = await getKeyPairs(from.rookery.ctx, signer.owner);
  const signed = await signRequest(
    new Request(signedUrl, { headers: { Accept: AP } }),
    rsa.privateKey,
    new URL(signer.keyId),
    { spec: "draft-cavage-http-signatures-12" },
  );
  // Sent to `url`: a signature made for another URL must not open this one.
  return await fetch(new Request(url, { headers: signed.headers }));
}

/**
 * A draft-cavage GET signature over only `(request-target)` and `Date`:
 * valid for Fedify, but it does not cover `Host`, so it could be replayed
 * on another server.
 */
async function hostlessSignedGet(from: TestInstance, url: string): Promise<Response> {
  const [rsa] = await getKeyPairs(from.rookery.ctx, INSTANCE_KEY_OWNER);
  const date = new Date().toUTCString();
  const target = `get ${new URL(url).pathname}`;
  const text = `(request-target): ${target}\ndate: ${date}`;
  const bytes = await crypto.subtle.sign(
    "RSASSA-PKCS1-v1_5",
    rsa.privateKey,
    new TextEncoder().encode(text),
  );
  const signature = btoa(String.fromCharCode(...new Uint8Array(bytes)));
  return await fetch(url, {
    headers: {
      Accept: AP,
      Date: date,
      Signature: `keyId="${from.origin}/actor#main-key",algorithm="rsa-sha256",` +
        `headers="(request-target) date",signature="${signature}"`,
    },
  });
}

async function plainGet(url: string, accept = AP): Promise<Response> {
  return await fetch(url, { headers: { Accept: accept } });
}

async function expectStatus(res: Response, status: number, what: string): Promise<any> {
  const text = await res.text();
  assert.equal(res.status, status, `${what}: ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : null;
}

test("authorized fetch: signed peers federate, unsigned readers get the key only", async (t) => {
  const seenByB: Seen[] = [];
  const { a, b } = await startPair({
    a: { env: { AUTHORIZED_FETCH: "true" } },
    b: {
      onRequest: (req) =>
        seenByB.push({
          method: req.method,
          path: new URL(req.url).pathname,
          signature: req.headers.get("signature"),
        }),
    },
  });
  try {
    const alice = await createUser(a, "alice", { account: { displayName: "Alice of A" } });
    const carol = await createUser(a, "carol");
    const dave = await createUser(a, "dave");
    const bob = await createUser(b, "bob");

    await t.step("B resolves and follows A's user, and receives her posts", async () => {
      const aliceOnB = await followRemote(b, bob, a, alice);
      // B's fetch of the actor is signed, so it sees the whole profile.
      const account = await ok(b, bob, "GET", `/api/v1/accounts/${aliceOnB}`);
      assert.equal(account.display_name, "Alice of A");
      const posted = await postStatus(a, alice, "Hello from secure A");
      const row = await arrived(b, posted.uri, "alice's post");
      assert.match(row.content, /Hello from secure A/);
    });

    const carolPost = await postStatus(a, carol, "Nobody on B follows carol #secure");

    await t.step("B fetches A's status by URL, signed", async () => {
      const row = await resolveRemoteStatus(
        instanceContext(b.rookery.ctx),
        carolPost.uri,
        FetchBudget.of(b.rookery.ctx),
      );
      assert.ok(row, "B fetched carol's status from A");
      assert.match(row.content, /Nobody on B follows carol/);
      const res = await signedGet(b, carolPost.uri);
      const note = await expectStatus(res, 200, "signed GET of the Note");
      assert.equal(note.id, carolPost.uri);
    });

    await t.step("an unsigned client gets 401 on objects and collections", async () => {
      const pageUrl = `${a.origin}/@carol/${carolPost.id}`;
      for (
        const url of [
          carolPost.uri,
          pageUrl,
          `${a.origin}/users/carol/outbox`,
          `${a.origin}/users/carol/outbox?cursor=0`,
          `${a.origin}/users/carol/followers`,
          `${a.origin}/users/carol/following`,
          `${a.origin}/users/carol/collections/featured`,
          `${a.origin}/users/carol/collections/tags`,
        ]
      ) {
        const body = await expectStatus(await plainGet(url), 401, `unsigned ${url}`);
        assert.ok(typeof body.error === "string", url);
        assert.doesNotMatch(JSON.stringify(body), /Nobody on B follows carol/);
      }
      // Nor does a 404 tell a hidden or missing status from a public one.
      const hidden = await postStatus(a, carol, { status: "mine", visibility: "private" });
      for (const uri of [hidden.uri, `${a.origin}/users/carol/statuses/1`]) {
        await expectStatus(await plainGet(uri), 401, `unsigned ${uri}`);
        await expectStatus(await signedGet(b, uri), 404, `signed ${uri}`);
      }
      // Signed, the same URLs answer (the page URL with a signature over itself).
      await expectStatus(await signedGet(b, pageUrl), 200, "signed page URL");
      await expectStatus(await signedGet(b, `${a.origin}/users/carol/outbox`), 200, "outbox");
      await expectStatus(
        await signedGet(b, `${a.origin}/users/carol/collections/featured`),
        200,
        "featured",
      );
      // The HTML page stays public, as Mastodon's does.
      const html = await plainGet(pageUrl, "text/html");
      assert.equal(html.status, 200, "HTML page");
      assert.match(await html.text(), /Nobody on B follows carol/);
    });

    await t.step("a deleted status's Tombstone needs a signature too", async () => {
      const gone = await postStatus(a, carol, "soon gone");
      assert.equal((await call(a, carol, "DELETE", `/api/v1/statuses/${gone.id}`)).status, 200);
      await expectStatus(await plainGet(gone.uri), 401, "unsigned Tombstone");
      const tomb = await expectStatus(await signedGet(b, gone.uri), 410, "signed Tombstone");
      assert.equal(tomb.type, "Tombstone");
    });

    await t.step("signatures that do not hold are refused", async () => {
      const outbox = `${a.origin}/users/carol/outbox`;
      // Made for another path of A: not reusable here.
      await expectStatus(
        await signedGet(b, outbox, undefined, `${a.origin}/users/carol/followers`),
        401,
        "signature over another URL",
      );
      // Valid, but without Host: a signature that could be replayed on another server.
      await expectStatus(await hostlessSignedGet(b, outbox), 401, "signature without Host");
      // Signed by another key than the one its keyId names (B's instance key as bob's).
      await expectStatus(
        await signedGet(b, outbox, {
          owner: INSTANCE_KEY_OWNER,
          keyId: `${b.origin}/users/bob#main-key`,
        }),
        401,
        "signature by another key",
      );
    });

    await t.step("an owner's domain block of the signer's server refuses its fetches", async () => {
      await ok(a, dave, "POST", "/api/v1/domain_blocks", { domain: b.domain });
      await expectStatus(await signedGet(b, `${a.origin}/users/dave/outbox`), 401, "blocked");
      await expectStatus(await signedGet(b, `${a.origin}/users/carol/outbox`), 200, "not blocked");
    });

    await t.step("the actor documents stay fetchable unsigned, with their key", async () => {
      const res = await plainGet(`${a.origin}/users/alice`);
      // Signed and unsigned readers get different documents: caches must not mix them.
      assert.match(res.headers.get("vary") ?? "", /Signature/);
      const actor = await expectStatus(res, 200, "unsigned actor");
      assert.equal(actor.id, `${a.origin}/users/alice`);
      assert.equal(actor.preferredUsername, "alice");
      assert.equal(actor.inbox, `${a.origin}/users/alice/inbox`);
      assert.equal(actor.publicKey.id, `${a.origin}/users/alice#main-key`);
      assert.match(actor.publicKey.publicKeyPem, /BEGIN PUBLIC KEY/);
      // Nothing of the profile for an unsigned reader (Mastodon's restrict_fields_to).
      for (const field of ["name", "summary", "outbox", "followers", "url", "icon"]) {
        assert.equal(actor[field], undefined, `unsigned actor has no ${field}`);
      }
      const full = await expectStatus(
        await signedGet(b, `${a.origin}/users/alice`),
        200,
        "signed actor",
      );
      assert.equal(full.name, "Alice of A");
      assert.equal(full.outbox, `${a.origin}/users/alice/outbox`);

      const instance = await expectStatus(await plainGet(`${a.origin}/actor`), 200, "/actor");
      assert.equal(instance.publicKey.id, `${a.origin}/actor#main-key`);
      const wf = await plainGet(
        `${a.origin}/.well-known/webfinger?resource=acct:alice@${a.domain}`,
      );
      await expectStatus(wf, 200, "WebFinger");
      await expectStatus(
        await plainGet(`${a.origin}/nodeinfo/2.1`, "application/json"),
        200,
        "NodeInfo",
      );
    });

    await t.step("unauthenticated API reads answer 401 with Mastodon's error", async () => {
      const aliceId = alice.id;
      const paths = [
        `/api/v1/statuses/${carolPost.id}`,
        `/api/v1/statuses/${carolPost.id}/context`,
        `/api/v1/accounts/${aliceId}`,
        `/api/v1/accounts/${aliceId}/statuses`,
        `/api/v1/accounts/lookup?acct=alice`,
        `/api/v1/timelines/public`,
        `/api/v1/timelines/tag/secure`,
      ];
      for (const path of paths) {
        const res = await callJson(a, null, "GET", path);
        assert.equal(res.status, 401, path);
        assert.deepEqual(res.body, { error: API_ERROR }, path);
        // A signed-in user reads them.
        assert.equal((await call(a, alice, "GET", path)).status, 200, `${path} as alice`);
      }
      // What a client needs before signing in stays open: the instance,
      // registering an app, and checking the app's token.
      assert.equal((await call(a, null, "GET", "/api/v1/instance")).status, 200);
      assert.equal((await call(a, null, "GET", "/api/v2/instance")).status, 200);
      const app = await ok(a, null, "POST", "/api/v1/apps", {
        client_name: "reader",
        redirect_uris: "urn:ietf:wg:oauth:2.0:oob",
        scopes: "read",
      });
      const grant = await ok(a, null, "POST", "/oauth/token", {
        grant_type: "client_credentials",
        client_id: app.client_id,
        client_secret: app.client_secret,
        scope: "read",
      });
      const appToken = grant.access_token;
      assert.equal((await call(a, appToken, "GET", "/api/v1/apps/verify_credentials")).status, 200);
      // An app token is not a user: statuses stay closed to it.
      const asApp = await callJson(a, appToken, "GET", `/api/v1/statuses/${carolPost.id}`);
      assert.equal(asApp.status, 401);
      assert.deepEqual(asApp.body, { error: API_ERROR });
      // B is not in that mode: its API answers anonymous readers.
      assert.equal((await call(b, null, "GET", "/api/v1/timelines/public")).status, 200);
    });

    await t.step("A in that mode fetches from B with signed requests", async () => {
      const bobPost = await postStatus(b, bob, "A fetches this from B");
      const row = await resolveRemoteStatus(
        instanceContext(a.rookery.ctx),
        bobPost.uri,
        FetchBudget.of(a.rookery.ctx),
      );
      assert.ok(row, "A fetched bob's status");
      assert.match(row.content, /A fetches this from B/);
      const path = new URL(bobPost.uri).pathname;
      const gets = seenByB.filter((r) => r.method === "GET" && r.path === path);
      assert.ok(gets.length > 0, "B saw A's GET");
      for (const get of gets) {
        assert.match(get.signature ?? "", new RegExp(`keyId="${a.origin}/actor#main-key"`));
      }
    });

    await t.step("two servers in that mode follow and read each other", async () => {
      // Each verifies the other's user keys from the key-only actor documents.
      const c = await startInstance({ tls: true, env: { AUTHORIZED_FETCH: "true" } });
      try {
        const carl = await createUser(c, "carl");
        const aliceOnC = await followRemote(c, carl, a, alice);
        const account = await ok(c, carl, "GET", `/api/v1/accounts/${aliceOnC}`);
        assert.equal(account.display_name, "Alice of A");
        const posted = await postStatus(a, alice, "From one secure server to another");
        await arrived(c, posted.uri, "alice's post on C");
        const carlsPost = await postStatus(c, carl, "C's own post");
        const row = await resolveRemoteStatus(
          instanceContext(a.rookery.ctx),
          carlsPost.uri,
          FetchBudget.of(a.rookery.ctx),
        );
        assert.ok(row, "A fetched carl's status from C");
      } finally {
        await closeAll(c);
      }
    });
  } finally {
    await closeAll(a, b);
  }
});

test("authorized fetch off: the same reads are open (control)", async () => {
  const a = await startInstance({ listen: true });
  try {
    const carol = await createUser(a, "carol", { account: { displayName: "Carol" } });
    const post = await postStatus(a, carol, "open");
    await expectStatus(await plainGet(post.uri), 200, "unsigned Note");
    await expectStatus(await plainGet(`${a.origin}/users/carol/outbox`), 200, "unsigned outbox");
    const actor = await expectStatus(await plainGet(`${a.origin}/users/carol`), 200, "actor");
    assert.equal(actor.name, "Carol");
    const res = await callJson(a, null, "GET", `/api/v1/statuses/${post.id}`);
    assert.equal(res.status, 200);
  } finally {
    await closeAll(a);
  }
});
