/**
 * Who may speak for a remote actor, and what an inbox reads before it knows:
 * deliveries signed by a hand-written peer on loopback (tests/fixtures/
 * fake_peer.ts) with its own RSA and Ed25519 keys, against one Rookery
 * instance. An actor may list several keys: each one verifies.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { exportSpki } from "@fedify/fedify";
import { accounts } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { rsaKeyPair, startFakePeer, statusOf as status } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";
import { createUser } from "../fixtures/users.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

let serial = 0;
function note(actor: string, content = "words") {
  const id = `${actor}/notes/${++serial}`;
  return {
    "@context": AS,
    id: `${id}/activity`,
    type: "Create",
    actor,
    to: [PUBLIC],
    object: { id, type: "Note", attributedTo: actor, to: [PUBLIC], content },
  };
}

test("signatures: only the key an actor publishes speaks for it", async (t) => {
  const rookery = await startInstance();
  const victimHost = await startFakePeer();
  const attackerHost = await startFakePeer();
  const send = (request: Request) => rookery.request(request.url, request);
  const inbox = `${rookery.origin}/inbox`;
  try {
    const alice = await createUser(rookery, "alice");
    const victim = victimHost.publishActor("victim", { name: "The Victim" });
    const attacker = attackerHost.publishActor("attacker");

    await t.step("a standalone key naming the victim as owner is refused", async () => {
      // The victim's document lists only its own key; this one merely claims it.
      attackerHost.serve("/forged-key", {
        "@context": [AS, "https://w3id.org/security/v1"],
        id: `${attackerHost.origin}/forged-key`,
        type: "CryptographicKey",
        owner: victim,
        publicKeyPem: attackerHost.publicKeyPem,
      });
      const keyId = `${attackerHost.origin}/forged-key`;
      const create = note(victim, "forged words");
      assert.equal(await status(await attackerHost.deliver(inbox, create, { keyId, send })), 401);
      const rename = {
        "@context": AS,
        id: `${attacker}#rename`,
        type: "Update",
        actor: victim,
        object: { id: victim, type: "Person", name: "Renamed by someone else" },
      };
      assert.equal(await status(await attackerHost.deliver(inbox, rename, { keyId, send })), 401);
      const follow = {
        "@context": AS,
        id: `${attacker}#follow`,
        type: "Follow",
        actor: victim,
        object: `${rookery.origin}/users/${alice.username}`,
      };
      assert.equal(await status(await attackerHost.deliver(inbox, follow, { keyId, send })), 401);
      assert.equal(await storedStatus(rookery, create.object.id), undefined);
    });

    await t.step("keys that name each other as owner are refused without a loop", async () => {
      const keyA = `${attackerHost.origin}/key-a`;
      const keyB = `${attackerHost.origin}/key-b`;
      const keyDoc = (id: string, owner: string) => ({
        "@context": [AS, "https://w3id.org/security/v1"],
        id,
        type: "CryptographicKey",
        owner,
        publicKeyPem: attackerHost.publicKeyPem,
      });
      attackerHost.serve("/key-a", keyDoc(keyA, keyB));
      attackerHost.serve("/key-b", keyDoc(keyB, keyA));
      const res = await attackerHost.deliver(inbox, note(victim), { keyId: keyA, send });
      assert.equal(await status(res), 401);
      assert.ok(attackerHost.hits("/key-a") <= 2, `${attackerHost.hits("/key-a")} fetches`);
      assert.ok(attackerHost.hits("/key-b") <= 2, `${attackerHost.hits("/key-b")} fetches`);
    });

    await t.step("a key embedded in another actor that names the victim is refused", async () => {
      attackerHost.serve("/users/decoy", {
        "@context": [AS, "https://w3id.org/security/v1"],
        id: `${attackerHost.origin}/users/decoy`,
        type: "Person",
        inbox: `${attackerHost.origin}/users/decoy/inbox`,
        publicKey: {
          id: `${attackerHost.origin}/users/decoy#main-key`,
          owner: victim,
          publicKeyPem: attackerHost.publicKeyPem,
        },
      });
      const create = note(victim, "forged again");
      const keyId = `${attackerHost.origin}/users/decoy#main-key`;
      assert.equal(await status(await attackerHost.deliver(inbox, create, { keyId, send })), 401);
    });

    await t.step("a real key of actor A cannot sign for actor B", async () => {
      const keyId = `${attacker}#main-key`;
      // Not the signer's own activity: refused, unless it is a Create, which
      // is taken as relayed and read from the victim's server (which has no
      // such note, so nothing is stored).
      const rename = {
        "@context": AS,
        id: `${attacker}#rename-2`,
        type: "Update",
        actor: victim,
        object: { id: victim, type: "Person", name: "Renamed by the attacker" },
      };
      assert.equal(await status(await attackerHost.deliver(inbox, rename, { keyId, send })), 401);
      const create = note(victim, "signed by the attacker");
      assert.equal(await status(await attackerHost.deliver(inbox, create, { keyId, send })), 202);
      const mine = note(attacker, "the attacker's own post");
      assert.equal(await status(await attackerHost.deliver(inbox, mine, { keyId, send })), 202);
      await eventually("the attacker's own post", () => storedStatus(rookery, mine.object.id));
      assert.equal(await storedStatus(rookery, create.object.id), undefined);
    });

    await t.step("the victim's own key is accepted (cavage and RFC 9421)", async () => {
      const keyId = `${victim}#main-key`;
      const cavage = note(victim, "really mine");
      assert.equal(await status(await victimHost.deliver(inbox, cavage, { keyId, send })), 202);
      const rfc = note(victim, "mine too");
      const res = await victimHost.deliver(inbox, rfc, { keyId, send, spec: "rfc9421" });
      assert.equal(await status(res), 202);
      await eventually(
        "both posts stored",
        async () =>
          (await storedStatus(rookery, cavage.object.id)) &&
          (await storedStatus(rookery, rfc.object.id)),
      );
      // Nothing the refused deliveries said took effect.
      const [row] = await rookery.rookery.ctx.database.db.select().from(accounts)
        .where(eq(accounts.uri, victim));
      assert.equal(row.displayName, "The Victim");
    });

    await t.step(
      "a signature dated 2 h ahead or 13 h back is refused; 30 min ahead is not",
      async () => {
        const keyId = `${victim}#main-key`;
        const at = (ms: number) => new Date(Date.now() + ms);
        const hour = 3_600_000;
        for (const spec of ["draft-cavage-http-signatures-12", "rfc9421"] as const) {
          const ahead = await victimHost.deliver(inbox, note(victim), {
            keyId,
            send,
            spec,
            time: at(2 * hour),
          });
          assert.equal(await status(ahead), 401, `${spec}: 2 h ahead`);
          const old = await victimHost.deliver(inbox, note(victim), {
            keyId,
            send,
            spec,
            time: at(-13 * hour),
          });
          assert.equal(await status(old), 401, `${spec}: 13 h old`);
        }
        const skewed = await victimHost.deliver(inbox, note(victim), {
          keyId,
          send,
          time: at(hour / 2),
        });
        assert.equal(await status(skewed), 202);
      },
    );

    await t.step(
      "keys served as text/plain, or with an id on another origin, are refused",
      async () => {
        victimHost.serve("/users/plain", {
          "@context": [AS, "https://w3id.org/security/v1"],
          id: `${victimHost.origin}/users/plain`,
          type: "Person",
          inbox: `${victimHost.origin}/users/plain/inbox`,
          publicKey: {
            id: `${victimHost.origin}/users/plain#main-key`,
            owner: `${victimHost.origin}/users/plain`,
            publicKeyPem: victimHost.publicKeyPem,
          },
        }, "text/plain");
        const plain = `${victimHost.origin}/users/plain`;
        const res = await victimHost.deliver(inbox, note(plain), {
          keyId: `${plain}#main-key`,
          send,
        });
        assert.equal(await status(res), 401);
        // An actor document on the attacker's host that claims an id on the victim's.
        attackerHost.serve("/users/mirror", {
          "@context": [AS, "https://w3id.org/security/v1"],
          id: victim,
          type: "Person",
          inbox: `${victim}/inbox`,
          publicKey: {
            id: `${victim}#main-key`,
            owner: victim,
            publicKeyPem: attackerHost.publicKeyPem,
          },
        });
        const keyId = `${attackerHost.origin}/users/mirror#main-key`;
        const mirrored = await attackerHost.deliver(inbox, note(victim, "mirrored"), {
          keyId,
          send,
        });
        assert.equal(await status(mirrored), 401);
      },
    );

    await t.step("every key an actor lists verifies, and all of them are recorded", async () => {
      const id = victimHost.actor("many");
      const second = await rsaKeyPair();
      victimHost.publishActor("many", {
        "@context": [
          AS,
          "https://w3id.org/security/v1",
          "https://www.w3.org/ns/did/v1",
          "https://w3id.org/security/multikey/v1",
        ],
        publicKey: [
          { id: `${id}#main-key`, owner: id, publicKeyPem: victimHost.publicKeyPem },
          { id: `${id}#key-2`, owner: id, publicKeyPem: await exportSpki(second.publicKey) },
          { id: `${id}#ed25519-key`, owner: id, publicKeyPem: victimHost.edPublicKeyPem },
        ],
        assertionMethod: [{
          id: `${id}#multikey`,
          type: "Multikey",
          controller: id,
          publicKeyMultibase: victimHost.edPublicKeyMultibase,
        }],
      });
      const signedWith = (keyId: string, spec: "draft-cavage-http-signatures-12" | "rfc9421") => {
        const privateKey = keyId.endsWith("#key-2")
          ? second.privateKey
          : keyId.endsWith("#ed25519-key")
          ? victimHost.edKeys.privateKey
          : victimHost.keys.privateKey;
        const create = note(id, `signed with ${keyId} (${spec})`);
        return victimHost.deliver(inbox, create, { keyId, privateKey, send, spec }).then(status);
      };
      const cavage = "draft-cavage-http-signatures-12";
      assert.equal(await signedWith(`${id}#main-key`, cavage), 202);
      assert.equal(await signedWith(`${id}#key-2`, cavage), 202);
      assert.equal(await signedWith(`${id}#main-key`, "rfc9421"), 202);
      assert.equal(await signedWith(`${id}#ed25519-key`, "rfc9421"), 202);
      assert.equal(await signedWith(`${id}#key-3`, cavage), 401);
      const row = await eventually("the account", async () => {
        const [found] = await rookery.rookery.ctx.database.db.select().from(accounts)
          .where(eq(accounts.uri, id));
        return found;
      });
      assert.deepEqual(row.publicKeys, [
        { id: `${id}#main-key`, type: "rsa", in: "publicKey" },
        { id: `${id}#key-2`, type: "rsa", in: "publicKey" },
        { id: `${id}#ed25519-key`, type: "ed25519", in: "publicKey" },
        { id: `${id}#multikey`, type: "ed25519", in: "assertionMethod" },
      ]);
      assert.equal(row.publicKeyId, `${id}#main-key`);
    });
  } finally {
    await victimHost.close();
    await attackerHost.close();
    await rookery.close({ destroy: true });
  }
});
