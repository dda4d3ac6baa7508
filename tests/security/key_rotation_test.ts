/**
 * A peer that rotates its key keeps the key's id and serves the new key in
 * its actor document. A delivery signed with the new key fails against the
 * key we cached; the guard then fetches the actor document afresh, past the
 * document cache, and takes the delivery (Mastodon refetches the actor
 * when a signature fails with a stored key). It did so before too, but
 * through the document cache, which kept answering the old key for five
 * minutes: every delivery meanwhile was a 401. The fresh fetch happens at
 * most once a minute per key id (federation/inbox/key_refresh.ts), so a
 * forger signing with a real peer's key id cannot make us fetch its
 * document on every request.
 */
import assert from "node:assert/strict";
import { exportSpki } from "@fedify/fedify";
import { startInstance, test } from "../harness.ts";
import { publicNoteCreate, rsaKeyPair, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";

test("a key rotated at the same id is fetched afresh once, not on every forgery", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer({ rsaBits: 2048 });
  const inbox = `${rookery.origin}/inbox`;
  const send = (request: Request) => rookery.request(request.url, request);
  let notes = 0;
  /** Delivers a new note of `actor`'s, signed with `privateKey` as `spec` says; the answer's status. */
  const deliver = async (
    actor: string,
    privateKey: CryptoKey,
    spec: "draft-cavage-http-signatures-12" | "rfc9421",
  ) => {
    const id = `${actor}/notes/${++notes}`;
    const create = publicNoteCreate(actor, id, { content: `note ${notes}` });
    const res = await peer.deliver(inbox, create, {
      keyId: `${actor}#main-key`,
      privateKey,
      spec,
      send,
    });
    return { status: await statusOf(res), id };
  };
  /** Publishes `name` with a new key pair under the same key id; the pair. */
  const rotate = async (name: string) => {
    const keys = await rsaKeyPair();
    const id = peer.actor(name);
    peer.publishActor(name, {
      publicKey: {
        id: `${id}#main-key`,
        owner: id,
        publicKeyPem: await exportSpki(keys.publicKey),
      },
    });
    return keys;
  };
  try {
    for (const spec of ["draft-cavage-http-signatures-12", "rfc9421"] as const) {
      await t.step(`${spec}: the new key is taken at its first delivery`, async () => {
        const name = spec === "rfc9421" ? "rotor9421" : "rotor";
        const actor = peer.publishActor(name);
        const path = `/users/${name}`;
        const first = await deliver(actor, peer.keys.privateKey, spec);
        assert.equal(first.status, 202, "the old key, first seen");
        await eventually("the first note", () => storedStatus(rookery, first.id));

        const rotated = await rotate(name);
        const fetched = peer.hits(path);
        const second = await deliver(actor, rotated.privateKey, spec);
        assert.equal(second.status, 202, "the new key, at the same id");
        await eventually("the second note", () => storedStatus(rookery, second.id));
        assert.ok(peer.hits(path) > fetched, "the actor fetched afresh");

        // Forged: signed with a key the actor does not publish. Refused, and
        // its document is not fetched again within the interval.
        const forger = await rsaKeyPair();
        const before = peer.hits(path);
        for (let i = 0; i < 3; i++) {
          assert.equal((await deliver(actor, forger.privateKey, spec)).status, 401);
        }
        assert.equal(peer.hits(path), before, "no fetch for a forgery within the interval");
        assert.equal((await deliver(actor, rotated.privateKey, spec)).status, 202);
      });
    }
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
