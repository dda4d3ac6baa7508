/**
 * Keys are fetched signed by the instance actor, like every other document:
 * a peer in authorized-fetch mode (here a fake one that answers its actor
 * and key documents only to a request our `/actor` key signed) is verified
 * when it delivers and when it makes a signed GET. Unsigned, its key fetch
 * got a 401 and its deliveries and fetches were refused.
 *
 * A key whose server cannot be reached (refused connection, 5xx, past the
 * deadline) is not a missing key: the delivery gets 503 with Retry-After,
 * and the failure is not remembered, so the sender's retry is verified.
 */
import assert from "node:assert/strict";
import { signRequest, verifyRequest } from "@fedify/fedify";
import type { DocumentLoader } from "@fedify/vocab-runtime";
import { contextLoader } from "../../federation/fetch/document_loader.ts";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { postStatus } from "../fixtures/api.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const AP = "application/activity+json";

test("key fetch: signed by the instance actor, so a peer in secure mode answers", async (t) => {
  const rookery = await startInstance({ env: { AUTHORIZED_FETCH: "true" } });
  const peer = await startFakePeer();
  const instanceKey = `${rookery.origin}/actor#main-key`;
  /** Our documents, read as the peer would read them (its own verification). */
  const ourDocuments: DocumentLoader = async (url) => {
    const res = await rookery.request(url, { headers: { Accept: AP } });
    return { contextUrl: null, document: await res.json(), documentUrl: url };
  };
  const refusedUnsigned: string[] = [];
  /** The peer's rule: a GET signed with our instance actor's key, which verifies. */
  const signedByOurInstance = async (request: Request) => {
    const key = await verifyRequest(request, { documentLoader: ourDocuments, contextLoader });
    if (key?.id?.href === instanceKey) return true;
    refusedUnsigned.push(new URL(request.url).pathname);
    return false;
  };
  try {
    await t.step("a delivery from that peer is verified and taken", async () => {
      const writer = peer.publishActor("writer");
      peer.requireSignature("/users/writer", signedByOurInstance);
      const note = {
        id: `${writer}/notes/1`,
        type: "Note",
        attributedTo: writer,
        to: [`${AS}#Public`],
        content: "from a server in secure mode",
      };
      const create = { "@context": AS, id: `${note.id}/activity`, type: "Create", actor: writer };
      const res = await peer.deliver(`${rookery.origin}/inbox`, { ...create, object: note }, {
        keyId: `${writer}#main-key`,
        send: (request) => rookery.request(request.url, request),
      });
      assert.equal(await statusOf(res), 202);
      await eventually("the note", () => storedStatus(rookery, note.id));
      assert.ok(peer.hits("/users/writer") >= 1);
      assert.deepEqual(refusedUnsigned, []);
    });

    await t.step(
      "its signed GET is verified, a standalone key and its owner both fetched signed",
      async () => {
        const alice = await createUser(rookery, "alice");
        const post = await postStatus(rookery, alice, "for signed readers");
        const keyId = `${peer.origin}/keys/reader`;
        const reader = peer.publishActor("reader", { publicKey: keyId });
        peer.serve("/keys/reader", {
          "@context": [AS, "https://w3id.org/security/v1"],
          id: keyId,
          type: "CryptographicKey",
          owner: reader,
          publicKeyPem: peer.publicKeyPem,
        });
        peer.requireSignature("/keys/reader", signedByOurInstance);
        peer.requireSignature("/users/reader", signedByOurInstance);
        const signed = await signRequest(
          new Request(post.uri, { headers: { Accept: AP } }),
          peer.keys.privateKey,
          new URL(keyId),
        );
        const res = await rookery.request(post.uri, { headers: signed.headers });
        const body = await res.text();
        assert.equal(res.status, 200, body);
        assert.match(body, /for signed readers/);
        assert.equal(peer.hits("/keys/reader"), 1);
        assert.equal(peer.hits("/users/reader"), 1);
        assert.deepEqual(refusedUnsigned, []);
      },
    );
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});

test("key fetch: a key server that cannot be reached is a 503, and is asked again next time", async (t) => {
  // A short deadline for the stalling key server; every other fetch here is to loopback.
  const rookery = await startInstance({ env: { AUTHORIZED_FETCH: "true", FETCH_TIMEOUT: "2" } });
  const peer = await startFakePeer();
  const send = (request: Request) => rookery.request(request.url, request);
  const inbox = `${rookery.origin}/inbox`;
  let serial = 0;
  const create = (actor: string) => {
    const id = `${actor}/notes/${++serial}`;
    const note = { id, type: "Note", attributedTo: actor, to: [`${AS}#Public`], content: "hello" };
    return { "@context": AS, id: `${id}/activity`, type: "Create", actor, object: note };
  };
  const deliver = async (actor: string, activity = create(actor)) => {
    const res = await peer.deliver(inbox, activity, { keyId: `${actor}#main-key`, send });
    const body = await res.text();
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body };
  };
  try {
    await t.step("connection refused: 503 with Retry-After", async () => {
      const gone = await startFakePeer();
      const actor = gone.publishActor("nobody");
      await gone.close();
      const activity = create(actor);
      const res = await gone.deliver(inbox, activity, { keyId: `${actor}#main-key`, send });
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("retry-after"), "60");
      assert.deepEqual(await res.json(), { error: "The key's server could not be reached" });
    });

    await t.step("500, then the same delivery once the server answers: 503, then 202", async () => {
      const actor = peer.publishActor("flaky");
      const serve = peer.routeOf("/users/flaky")!;
      peer.route("/users/flaky", () => new Response("oops", { status: 500 }));
      const activity = create(actor);
      const first = await deliver(actor, activity);
      assert.equal(first.status, 503, first.body);
      assert.equal(first.retryAfter, "60");
      peer.route("/users/flaky", serve);
      assert.equal((await deliver(actor, activity)).status, 202);
      await eventually("the note", () => storedStatus(rookery, activity.object.id));
    });

    await t.step("a key server that stalls past the deadline: 503", async () => {
      const actor = peer.publishActor("slow");
      peer.route("/users/slow", peer.stall());
      assert.equal((await deliver(actor)).status, 503);
    });

    await t.step("404, or a key the actor does not list: 401", async () => {
      const missing = `${peer.origin}/users/missing`;
      assert.equal((await deliver(missing)).status, 401);
      const actor = peer.publishActor("keyless", { publicKey: undefined });
      assert.equal((await deliver(actor)).status, 401);
    });

    await t.step("a signed GET whose key server fails is still 401", async () => {
      const alice = await createUser(rookery, "alice");
      const post = await postStatus(rookery, alice, "for signed readers");
      const actor = peer.publishActor("reader");
      peer.route("/users/reader", () => new Response("oops", { status: 503 }));
      const signed = await signRequest(
        new Request(post.uri, { headers: { Accept: AP } }),
        peer.keys.privateKey,
        new URL(`${actor}#main-key`),
      );
      const res = await rookery.request(post.uri, { headers: signed.headers });
      assert.equal(await statusOf(res), 401);
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
