/**
 * Draft-cavage signatures, as the inbox guard verifies them itself
 * (federation/inbox/cavage_signature.ts): every check Fedify made still
 * refuses, and what Fedify threw on (an unparsable Date, a key that is not
 * RSA) is a 401, not a 500. Requests signed by hand here, with the fake
 * peer's RSA key, against one instance.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import {
  type FakePeer,
  rsaKeyPair,
  startFakePeer,
  statusOf as status,
} from "../fixtures/fake_peer.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const COVERED = ["(request-target)", "host", "date", "digest"];

interface Signing {
  keyId: string;
  privateKey?: CryptoKey;
  /** The Date header (default now). */
  date?: string;
  /** The Digest header (default the body's SHA-256). */
  digest?: (body: Uint8Array) => Promise<string>;
  /** Extra Signature fields, e.g. `expires=123`. */
  fields?: string;
  covered?: string[];
}

const base64 = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)));

const sha256 = async (body: Uint8Array) =>
  `SHA-256=${base64(await crypto.subtle.digest("SHA-256", body as Uint8Array<ArrayBuffer>))}`;

/** A POST of `body` to `inbox` signed draft-cavage style as `signing` says. */
async function signed(peer: FakePeer, inbox: string, body: string, signing: Signing) {
  const url = new URL(inbox);
  const bytes = new TextEncoder().encode(body);
  const headers = new Headers({
    "Content-Type": "application/activity+json",
    Host: url.host,
    Date: signing.date ?? new Date().toUTCString(),
    Digest: await (signing.digest ?? sha256)(bytes),
  });
  const covered = signing.covered ?? COVERED;
  const lines = covered.map((name) =>
    name === "(request-target)"
      ? `(request-target): post ${url.pathname}`
      : `${name}: ${headers.get(name)}`
  );
  const signature = await crypto.subtle.sign(
    "RSASSA-PKCS1-v1_5",
    signing.privateKey ?? peer.keys.privateKey,
    new TextEncoder().encode(lines.join("\n")),
  );
  headers.set(
    "Signature",
    `keyId="${signing.keyId}",algorithm="rsa-sha256",headers="${covered.join(" ")}",` +
      `${signing.fields ? `${signing.fields},` : ""}signature="${base64(signature)}"`,
  );
  return new Request(inbox, { method: "POST", headers, body: bytes });
}

test("cavage signatures: the guard's own verification refuses what Fedify refused", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer({ rsaBits: 2048 });
  const send = (request: Request) => rookery.request(request.url, request);
  const inbox = `${rookery.origin}/inbox`;
  const actor = peer.publishActor("sender");
  const keyId = `${actor}#main-key`;
  let serial = 0;
  const create = () => {
    const id = `${actor}/notes/${++serial}`;
    return JSON.stringify({
      "@context": AS,
      id: `${id}/activity`,
      type: "Create",
      actor,
      to: [`${AS}#Public`],
      object: { id, type: "Note", attributedTo: actor, to: [`${AS}#Public`], content: "hi" },
    });
  };
  const sentWith = async (signing: Partial<Signing>, body = create()) =>
    await status(await send(await signed(peer, inbox, body, { keyId, ...signing })));
  try {
    await t.step("a well-signed delivery is accepted", async () => {
      assert.equal(await sentWith({}), 202);
    });

    await t.step("a body that is not the digested one is refused", async () => {
      const request = await signed(peer, inbox, create(), { keyId });
      const tampered = new Request(request.url, {
        method: "POST",
        headers: request.headers,
        body: create(),
      });
      assert.equal(await status(await send(tampered)), 401);
    });

    await t.step("every supported digest must match, and one at least be supported", async () => {
      const wrong512 = async (body: Uint8Array) =>
        `${await sha256(body)},SHA-512=${base64(new Uint8Array(64))}`;
      assert.equal(await sentWith({ digest: wrong512 }), 401);
      const unknownOnly = (body: Uint8Array) =>
        Promise.resolve(`MD5=${base64(body.subarray(0, 16))}`);
      assert.equal(await sentWith({ digest: unknownOnly }), 401);
      const notBase64 = () => Promise.resolve("SHA-256=!!!");
      assert.equal(await sentWith({ digest: notBase64 }), 401);
    });

    await t.step(
      "a Date outside the window, unparsable, or an expired signature is refused",
      async () => {
        const old = new Date(Date.now() - 13 * 60 * 60 * 1000).toUTCString();
        assert.equal(await sentWith({ date: old }), 401);
        assert.equal(await sentWith({ date: "not a date" }), 401);
        const expired = `expires=${Math.floor(Date.now() / 1000) - 60}`;
        assert.equal(await sentWith({ fields: expired }), 401);
        const created = `created=${Math.floor(Date.now() / 1000) - 13 * 60 * 60}`;
        assert.equal(await sentWith({ fields: created }), 401);
      },
    );

    await t.step(
      "a signature by another key than the one named, or mangled, is refused",
      async () => {
        const other = await rsaKeyPair();
        assert.equal(await sentWith({ privateKey: other.privateKey }), 401);
        // A signature cut short, or not base64: refused, not a server error.
        for (const cut of [(sig: string) => sig.slice(0, 20), () => "!!!"]) {
          const request = await signed(peer, inbox, create(), { keyId });
          const header = request.headers.get("signature")!;
          request.headers.set(
            "signature",
            header.replace(/signature="([^"]*)"/, (_, sig) => `signature="${cut(sig)}"`),
          );
          assert.equal(await status(await send(request)), 401);
        }
      },
    );

    await t.step("a key that is not RSA is refused, not a server error", async () => {
      const ed = peer.publishActor("edwards");
      peer.serve("/users/edwards", {
        "@context": [AS, "https://w3id.org/security/v1"],
        id: ed,
        type: "Person",
        preferredUsername: "edwards",
        inbox: `${ed}/inbox`,
        publicKey: { id: `${ed}#main-key`, owner: ed, publicKeyPem: peer.edPublicKeyPem },
      });
      const body = create().replaceAll(actor, ed);
      assert.equal(await sentWith({ keyId: `${ed}#main-key` }, body), 401);
    });
  } finally {
    await peer.close();
    await rookery.close();
  }
});
