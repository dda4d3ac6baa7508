/**
 * Deliveries carrying a Linked Data signature, as Mastodon signs every
 * public activity (federation/inbox/ld_signature.ts): HTTP-signed by their
 * own actor, they take the inbox's fast path (fast_path.ts: no JSON-LD work
 * in the request) and are read without Fedify's parse (plain_create.ts),
 * the signature kept unread, so a reply to a local post is forwarded to its
 * author's followers byte for byte and its signature still verifies there.
 * Relayed by someone else, the same note is still the guard's to reduce
 * (its content taken from its origin, never from the relayed copy); a
 * `signature` of another shape takes Fedify's path and never makes a 500.
 * Which path was taken is read from the log (the fast path's "Queued",
 * Fedify's "is enqueued").
 */
import assert from "node:assert/strict";
import { verifyJsonLd } from "@fedify/fedify/sig";
import { startInstance, test } from "../harness.ts";
import { publishProver, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { captureLogs } from "../fixtures/log_capture.ts";
import { inboundCreate, ldSigned } from "../../bench/inbound.ts";
import { contextLoader } from "../../federation/fetch/document_loader.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

test("LD-signed notes: the fast path for their own actor, forwarded intact, relayed ones reduced", async (t) => {
  const logs = await captureLogs("debug");
  const rookery = await startInstance();
  const peer = await startFakePeer({ rsaBits: 2048 });
  const other = await startFakePeer({ rsaBits: 2048 });
  const actor = peer.publishActor("masto", { followers: `${peer.origin}/users/masto/followers` });
  const bob = other.publishActor("bob");
  const relay = other.publishActor("relay");
  const toBob: string[] = [];
  other.route("/users/bob/inbox", async (request) => {
    toBob.push(await request.text());
    return new Response(null, { status: 202 });
  });
  const send = (request: Request) => rookery.request(request.url, request);
  const deliver = async (from: string, on: typeof peer, body: unknown, inbox?: string) =>
    await statusOf(
      await on.deliver(inbox ?? `${rookery.origin}/inbox`, body, {
        keyId: `${from}#main-key`,
        send,
      }),
    );
  const sign = (doc: Record<string, unknown>) =>
    ldSigned(doc, peer.keys.privateKey, `${actor}#main-key`);
  /** Whether the fast path queued the activity `id`; whether Fedify's request did. */
  const fastPath = (id: string) =>
    logs.records.some((r) => logs.text(r).startsWith("Queued ") && r.properties.id === id);
  const fedifyPath = (id: string) =>
    logs.records.some((r) =>
      r.category[0] === "fedify" && logs.text(r).includes(" is enqueued") &&
      r.properties.activityId === id
    );
  const alice = await createUser(rookery, "alice");
  try {
    await t.step("a Mastodon 4.5 note signed by its own actor takes the fast path", async () => {
      for (const shape of ["mastodon45", "minimal"]) {
        const id = `${actor}/statuses/${shape}`;
        const signed = await sign(inboundCreate(shape, actor, id, shape));
        assert.equal(await deliver(actor, peer, signed), 202);
        const row = await eventually(`the ${shape} note`, () => storedStatus(rookery, id));
        assert.ok(row.content.includes(`Inbound benchmark note ${shape}`));
        assert.equal(row.visibility, "public");
        assert.ok(fastPath(`${id}/activity`), `${shape}: the fast path`);
        assert.ok(!fedifyPath(`${id}/activity`), `${shape}: not Fedify's request`);
      }
    });

    await t.step(
      "a signed reply to a local post reaches its followers, still verifying",
      async () => {
        assert.equal(
          await deliver(bob, other, {
            "@context": AS,
            id: `${bob}/follows/1`,
            type: "Follow",
            actor: bob,
            object: `${rookery.origin}/users/alice`,
          }, `${rookery.origin}/users/alice/inbox`),
          202,
        );
        await eventually(
          "alice's follower",
          () => Promise.resolve(toBob.some((b) => b.includes('"Accept"'))),
        );
        const post = await postStatus(rookery, alice, {
          status: "Thoughts?",
          visibility: "public",
        });
        const id = `${actor}/statuses/reply`;
        const reply = await sign({
          "@context": AS,
          id: `${id}/activity`,
          type: "Create",
          actor,
          published: new Date().toISOString(),
          to: [PUBLIC],
          cc: [`${actor}/followers`],
          object: {
            id,
            type: "Note",
            attributedTo: actor,
            inReplyTo: post.uri,
            published: new Date().toISOString(),
            to: [PUBLIC],
            cc: [`${actor}/followers`],
            content: "<p>I agree</p>",
          },
        });
        assert.equal(await deliver(actor, peer, reply, `${rookery.origin}/users/alice/inbox`), 202);
        const row = await eventually("the reply", () => storedStatus(rookery, id));
        assert.equal(row.inReplyToId, post.id);
        assert.ok(fastPath(`${id}/activity`), "the fast path");
        const forwarded = await eventually(
          "the reply forwarded to bob",
          () => Promise.resolve(toBob.find((body) => body.includes(`"${id}/activity"`))),
        );
        assert.deepEqual(JSON.parse(forwarded), reply);
        const documentLoader = (url: string) =>
          Promise.resolve({
            contextUrl: null,
            documentUrl: url,
            document: peer.documentOf(new URL(url).pathname)!,
          });
        const options = { documentLoader, contextLoader };
        assert.ok(await verifyJsonLd(JSON.parse(forwarded), options), "the signature verifies");
        const changed = { ...reply, object: { ...reply.object as object, content: "<p>No</p>" } };
        assert.equal(await verifyJsonLd(changed, options), false, "a changed copy would not");
      },
    );

    await t.step(
      "a relayed signed note is reduced by the guard: its changed copy is never read",
      async () => {
        const id = `${actor}/statuses/relayed`;
        const genuine = await sign(inboundCreate("minimal", actor, id, "relayed"));
        // The origin serves the note as written; the relay delivers a changed copy of the Create.
        peer.serve(`/users/masto/statuses/relayed`, {
          "@context": AS,
          ...genuine.object as Record<string, unknown>,
        });
        const tampered = {
          ...genuine,
          object: { ...(genuine.object as Record<string, unknown>), content: "<p>tampered</p>" },
        };
        assert.equal(await deliver(relay, other, tampered), 202);
        const row = await eventually("the relayed note", () => storedStatus(rookery, id));
        assert.ok(row.content.includes("Inbound benchmark note relayed"), row.content);
        assert.ok(!fastPath(`${id}/activity`), "not queued as its actor's own");
      },
    );

    await t.step(
      "integrity proofs: their own actor's take the fast path, relayed ones not",
      async () => {
        const prover = publishProver(peer, "prover");
        const proved = async (name: string) => {
          const doc = inboundCreate("minimal", prover, `${prover}/statuses/${name}`, name);
          return await peer.prove(doc, { keyId: `${prover}#ed25519-key` });
        };
        const own = await proved("proved-own");
        assert.equal(await deliver(prover, peer, own), 202);
        await eventually(
          "the proved note",
          () => storedStatus(rookery, `${prover}/statuses/proved-own`),
        );
        assert.ok(fastPath(own.id as string), "its own actor's: the fast path");
        const relayed = await proved("proved-relayed");
        // Claiming the guard's mark does not help: the guard removes it.
        const spoofing = (request: Request) => {
          request.headers.set("rookery-signed-by-actor", "1");
          return send(request);
        };
        const inbox = `${rookery.origin}/inbox`;
        const keyId = `${relay}#main-key`;
        assert.equal(
          await statusOf(await other.deliver(inbox, relayed, { keyId, send: spoofing })),
          202,
        );
        await eventually(
          "the relayed note",
          () => storedStatus(rookery, `${prover}/statuses/proved-relayed`),
        );
        assert.ok(!fastPath(relayed.id as string), "relayed: not the fast path");
        assert.ok(fedifyPath(relayed.id as string), "relayed: Fedify's request");
        // A proof of another shape: Fedify's, as before.
        const odd: Record<string, unknown> = {
          ...await proved("proved-odd"),
          proof: { type: "Ed25519Signature2020" },
        };
        assert.equal(await deliver(prover, peer, odd), 202);
        assert.ok(!fastPath(odd.id as string), "an odd proof: not the fast path");
      },
    );

    await t.step("a signature of another shape takes Fedify's path and never fails", async () => {
      const note = (n: number) =>
        inboundCreate("minimal", actor, `${actor}/statuses/odd-${n}`, `${n}`);
      const signature = (await sign(note(0))).signature as Record<string, unknown>;
      const odd: unknown[] = [
        "RsaSignature2017",
        [signature],
        42,
        { ...signature, type: "Ed25519Signature2018" },
        { ...signature, creator: { id: `${actor}#main-key` } },
        { ...signature, signatureValue: "A".repeat(200_000) },
        { ...signature, "@context": "https://evil.example/" },
        { ...signature, nonce: "x" },
      ];
      for (const [n, value] of odd.entries()) {
        const doc: Record<string, unknown> = { ...note(n + 1), signature: value };
        const status = await deliver(actor, peer, doc);
        assert.ok(status === 202 || status === 400, `${n}: ${status}`);
        assert.ok(!fastPath(doc.id as string), `${n}: not the fast path`);
        if (status === 202) assert.ok(fedifyPath(doc.id as string), `${n}: Fedify's request`);
      }
      assert.equal(await deliver(actor, peer, await sign(note(99))), 202);
      await eventually(
        "the next signed note",
        () => storedStatus(rookery, `${actor}/statuses/odd-99`),
      );
      assert.deepEqual(logs.errors().filter((r) => logs.text(r).includes("500")), []);
    });
  } finally {
    await peer.close();
    await other.close();
    await rookery.close({ destroy: true });
    await logs.stop();
  }
});
