/**
 * Relayed activities and their FEP-8b32 proofs (federation/inbox/proofs.ts):
 * a fake peer with two actors, `author` (who proves with an Ed25519
 * Multikey it lists in `assertionMethod`) and `forwarder` (who signs the
 * HTTP request). A Create, Update or Delete proved by its author is taken
 * as the author's without anything fetched from the author's server; every
 * way a proof can be wrong is refused, and without a proof a relayed Create
 * is still read from its origin.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { type FakePeer, publishProver, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
const CONTEXT = [AS, "https://w3id.org/security/data-integrity/v1"];

let serial = 0;
/** A Create of a new public Note by `actor` (also served at its id, for the unproved path). */
function create(peer: FakePeer, actor: string, content = "proved words") {
  const id = `${actor}/notes/${++serial}`;
  const note = { id, type: "Note", attributedTo: actor, to: [PUBLIC], content };
  peer.serve(new URL(id).pathname, { "@context": AS, ...note });
  return {
    "@context": CONTEXT,
    id: `${id}/activity`,
    type: "Create",
    actor,
    to: [PUBLIC],
    object: note,
  };
}

test("proofs: a relayed activity proved by its author is its author's; anything less is refused", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  const send = (request: Request) => rookery.request(request.url, request);
  const inbox = `${rookery.origin}/inbox`;
  try {
    const author = publishProver(peer, "author");
    const forwarder = publishProver(peer, "forwarder");
    const authorKey = `${author}#ed25519-key`;
    const relay = (activity: unknown) =>
      peer.deliver(inbox, activity, { keyId: `${forwarder}#main-key`, send }).then(statusOf);

    let proved: ReturnType<typeof create>;
    await t.step("a Create proved by its author: stored without fetching the note", async () => {
      proved = create(peer, author);
      assert.equal(await relay(await peer.prove(proved, { keyId: authorKey })), 202);
      const row = await eventually(
        "the proved note",
        () => storedStatus(rookery, proved.object.id),
      );
      assert.equal(row.content.includes("proved words"), true);
      assert.equal(peer.hits(new URL(proved.object.id).pathname), 0);
    });

    await t.step("content changed after the proof: 401, nothing stored", async () => {
      const activity = create(peer, author, "original");
      const signed = await peer.prove(activity, { keyId: authorKey });
      const tampered = { ...signed, object: { ...activity.object, content: "changed" } };
      assert.equal(await relay(tampered), 401);
      assert.equal(await storedStatus(rookery, activity.object.id), undefined);
    });

    await t.step(
      "proofs whose key is not the author's, or out of date, or too many: 401",
      async () => {
        const cases: [string, () => Promise<unknown>][] = [
          ["a key the author does not list", async () => {
            const other = await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"]);
            return await peer.prove(create(peer, author), {
              keyId: `${author}#other-key`,
              privateKey: (other as CryptoKeyPair).privateKey,
            });
          }],
          [
            "the forwarder's own key",
            () => peer.prove(create(peer, author), { keyId: `${forwarder}#ed25519-key` }),
          ],
          ["an expired proof", () =>
            peer.prove(create(peer, author), {
              keyId: authorKey,
              expires: new Date(Date.now() - 60_000),
            })],
          ["a proof dated 2 h ahead", () =>
            peer.prove(create(peer, author), {
              keyId: authorKey,
              created: new Date(Date.now() + 2 * 3_600_000),
            })],
          ["three proofs", async () => {
            let activity: Record<string, unknown> = create(peer, author);
            for (let i = 0; i < 3; i++) {
              activity = await peer.prove(activity, { keyId: authorKey });
            }
            return activity;
          }],
        ];
        for (const [what, build] of cases) {
          const activity = await build() as { object: { id: string } };
          assert.equal(await relay(activity), 401, what);
          assert.equal(await storedStatus(rookery, activity.object.id), undefined, what);
        }
      },
    );

    await t.step("a proved Create of someone else's note, or a proved Like: 401", async () => {
      const foreign = create(peer, author);
      foreign.object.attributedTo = forwarder;
      assert.equal(await relay(await peer.prove(foreign, { keyId: authorKey })), 401);
      const like = {
        "@context": CONTEXT,
        id: `${author}#likes/1`,
        type: "Like",
        actor: author,
        object: proved.object.id,
      };
      assert.equal(await relay(await peer.prove(like, { keyId: authorKey })), 401);
    });

    await t.step("without a proof a relayed Create is read from its origin", async () => {
      const plain = create(peer, author, "unproved words");
      assert.equal(await relay(plain), 202);
      await eventually("the unproved note", () => storedStatus(rookery, plain.object.id));
      assert.equal(peer.hits(new URL(plain.object.id).pathname), 1);
    });

    await t.step("a proved Update and a proved Delete apply", async () => {
      const update = {
        "@context": CONTEXT,
        id: `${proved.object.id}#updates/1`,
        type: "Update",
        actor: author,
        to: [PUBLIC],
        object: {
          ...proved.object,
          content: "edited words",
          updated: new Date().toISOString(),
        },
      };
      assert.equal(await relay(await peer.prove(update, { keyId: authorKey })), 202);
      await eventually(
        "the edit",
        async () =>
          (await storedStatus(rookery, proved.object.id))?.content.includes("edited words"),
      );
      const del = {
        "@context": CONTEXT,
        id: `${proved.object.id}#delete`,
        type: "Delete",
        actor: author,
        to: [PUBLIC],
        object: { id: proved.object.id, type: "Tombstone" },
      };
      assert.equal(await relay(await peer.prove(del, { keyId: authorKey })), 202);
      await eventually(
        "the deletion",
        async () => (await storedStatus(rookery, proved.object.id))?.deletedAt != null,
      );
      assert.equal(peer.hits(new URL(proved.object.id).pathname), 0);
    });

    await t.step("the author's server failing: 503, then accepted once it answers", async () => {
      const flaky = publishProver(peer, "flaky");
      const serveActor = peer.routeOf("/users/flaky")!;
      peer.route("/users/flaky", () => new Response("down", { status: 500 }));
      const flakyCreate = create(peer, flaky);
      const activity = await peer.prove(flakyCreate, { keyId: `${flaky}#ed25519-key` });
      const res = await peer.deliver(inbox, activity, { keyId: `${forwarder}#main-key`, send });
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("retry-after"), "60");
      await res.body?.cancel();
      peer.route("/users/flaky", serveActor);
      assert.equal(await relay(activity), 202);
      await eventually("the note", () => storedStatus(rookery, flakyCreate.object.id));
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
