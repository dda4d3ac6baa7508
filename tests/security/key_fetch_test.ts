/**
 * Keys are fetched signed by the instance actor, like every other document:
 * a peer in authorized-fetch mode (here a fake one that answers its actor
 * and key documents only to a request our `/actor` key signed) is verified
 * when it delivers and when it makes a signed GET. Unsigned, its key fetch
 * got a 401 and its deliveries and fetches were refused.
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
