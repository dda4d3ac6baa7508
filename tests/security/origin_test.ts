/**
 * Signatures that verify but do not say what they claim, and servers that
 * speak about objects on other servers: a changed body, a signature that
 * leaves out the digest or the host, a replayed activity, a Create or
 * Announce embedding someone else's object, and activities relayed by a
 * third party. Two hand-written peers on loopback against one instance.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { statuses } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf as status } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

test("origins: a server speaks only for itself and its own signatures", async (t) => {
  const rookery = await startInstance();
  const victimHost = await startFakePeer();
  const attackerHost = await startFakePeer();
  const send = (request: Request) => rookery.request(request.url, request);
  const inbox = `${rookery.origin}/inbox`;
  const victim = victimHost.publishActor("victim");
  const attacker = attackerHost.publishActor("attacker");
  const attackerKey = `${attacker}#main-key`;
  let serial = 0;
  /** A public note of `actor`'s, served by `host` when `publish` is set. */
  const noteOf = (actor: string, content: string) => ({
    id: `${actor}/notes/${++serial}`,
    type: "Note",
    attributedTo: actor,
    to: [PUBLIC],
    content,
  });
  const createOf = (actor: string, object: Record<string, unknown>) => ({
    "@context": AS,
    id: `${object.id}/activity`,
    type: "Create",
    actor,
    to: [PUBLIC],
    object,
  });
  /** A marker post by the attacker: once it is stored, earlier deliveries were handled. */
  const settle = async () => {
    const marker = noteOf(attacker, "marker");
    const res = await attackerHost.deliver(inbox, createOf(attacker, marker), {
      keyId: attackerKey,
      send,
    });
    assert.equal(await status(res), 202);
    await eventually("the marker post", () => storedStatus(rookery, marker.id));
  };
  try {
    await t.step("a body changed after signing is refused", async () => {
      const body = JSON.stringify(createOf(attacker, noteOf(attacker, "signed words")));
      const signed = await attackerHost.handSigned(inbox, body, attackerKey, [
        "(request-target)",
        "host",
        "date",
        "digest",
      ]);
      const changed = body.replace("signed words", "changed words");
      const res = await send(
        new Request(signed.url, { method: "POST", headers: signed.headers, body: changed }),
      );
      assert.equal(await status(res), 401);
      // The same signature over the unchanged body passes: the refusal was the change.
      assert.equal(await status(await send(signed)), 202);
      // RFC 9421: the Content-Digest no longer matches the body.
      const rfcBody = JSON.stringify(createOf(attacker, noteOf(attacker, "signed words")));
      let captured: Request | null = null;
      await attackerHost.deliver(inbox, null, {
        keyId: attackerKey,
        spec: "rfc9421",
        raw: rfcBody,
        send: (request) => {
          captured = request;
          return Promise.resolve(new Response(null, { status: 202 }));
        },
      });
      const rfcSigned = captured! as Request;
      assert.ok(rfcSigned.headers.has("content-digest"));
      const rfcChanged = rfcBody.replace("signed words", "changed words");
      const rfcRes = await send(
        new Request(rfcSigned.url, {
          method: "POST",
          headers: rfcSigned.headers,
          body: rfcChanged,
        }),
      );
      assert.equal(await status(rfcRes), 401);
    });

    await t.step("a signature that does not cover the digest or the host is refused", async () => {
      for (
        const covered of [["(request-target)", "host", "date"], [
          "(request-target)",
          "date",
          "digest",
        ]]
      ) {
        const body = JSON.stringify(createOf(attacker, noteOf(attacker, "uncovered")));
        const signed = await attackerHost.handSigned(inbox, body, attackerKey, covered);
        assert.equal(await status(await send(signed)), 401, covered.join(" "));
      }
    });

    await t.step("a replayed activity is acknowledged and has no second effect", async () => {
      const note = noteOf(attacker, "said once");
      const create = createOf(attacker, note);
      for (let i = 0; i < 3; i++) {
        const res = await attackerHost.deliver(inbox, create, { keyId: attackerKey, send });
        assert.equal(await status(res), 202);
      }
      await settle();
      const rows = await rookery.rookery.ctx.database.db.select({ id: statuses.id }).from(statuses)
        .where(eq(statuses.uri, note.id));
      assert.equal(rows.length, 1);
    });

    await t.step("a Create embedding a note on another server is not taken on trust", async () => {
      // The victim's server does not have this note: the embedded copy is all there is.
      const foreign = noteOf(victim, "words put in the victim's mouth");
      // Each Create's own id on the attacker's server (one on the victim's is refused outright).
      const own = (create: Record<string, unknown>) => ({
        ...create,
        id: `${attacker}/creates/${++serial}`,
      });
      const asAttacker = own(createOf(attacker, { ...foreign, attributedTo: attacker }));
      const asVictim = own(createOf(attacker, foreign));
      for (const create of [asAttacker, asVictim]) {
        const res = await attackerHost.deliver(inbox, create, { keyId: attackerKey, send });
        assert.equal(await status(res), 202);
      }
      await settle();
      assert.equal(await storedStatus(rookery, foreign.id), undefined);
    });

    await t.step(
      "an Announce embedding a foreign object is re-fetched from its server",
      async () => {
        const real = noteOf(victim, "what the victim really said");
        victimHost.serve(new URL(real.id).pathname, { "@context": AS, ...real });
        const announce = {
          "@context": AS,
          id: `${attacker}/boosts/${++serial}`,
          type: "Announce",
          actor: attacker,
          to: [PUBLIC],
          object: { ...real, content: "a forged version" },
        };
        const res = await attackerHost.deliver(inbox, announce, { keyId: attackerKey, send });
        assert.equal(await status(res), 202);
        const stored = await eventually("the boosted note", () => storedStatus(rookery, real.id));
        assert.match(stored.content, /really said/);
        assert.doesNotMatch(stored.content, /forged/);
      },
    );

    await t.step(
      "relayed activities: a Create is fetched from its origin, the rest refused",
      async () => {
        const real = noteOf(victim, "the original words");
        victimHost.serve(new URL(real.id).pathname, { "@context": AS, ...real });
        // Relayed by the attacker with a Linked Data signature that proves nothing.
        const relayed = {
          ...createOf(victim, { ...real, content: "relayed and rewritten" }),
          signature: {
            type: "RsaSignature2017",
            creator: `${victim}#main-key`,
            created: new Date().toISOString(),
            signatureValue: "bm90IGEgc2lnbmF0dXJl",
          },
        };
        const res = await attackerHost.deliver(inbox, relayed, { keyId: attackerKey, send });
        assert.equal(await status(res), 202);
        const stored = await eventually("the relayed note", () => storedStatus(rookery, real.id));
        assert.match(stored.content, /original words/);
        const update = {
          "@context": AS,
          id: `${victim}#updates/${++serial}`,
          type: "Update",
          actor: victim,
          object: { ...real, content: "edited by the relay", updated: new Date().toISOString() },
        };
        const del = {
          "@context": AS,
          id: `${victim}#deletes/${++serial}`,
          type: "Delete",
          actor: victim,
          object: real.id,
        };
        for (const activity of [update, del]) {
          const res = await attackerHost.deliver(inbox, activity, { keyId: attackerKey, send });
          assert.equal(await status(res), 401, activity.type);
        }
        await settle();
        const after = await storedStatus(rookery, real.id);
        assert.equal(after?.deletedAt, null);
        assert.match(after!.content, /original words/);
      },
    );
  } finally {
    await victimHost.close();
    await attackerHost.close();
    await rookery.close({ destroy: true });
  }
});
