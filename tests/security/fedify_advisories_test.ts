/**
 * Each class of attack Fedify's 2026 security advisories name, tried on
 * Rookery whatever Fedify release it runs (we stay on 2.3.6, the newest the
 * registry serves; see docs/development.md, Dependencies): hand-written peers on
 * loopback against one instance, and a second with a 2-second FETCH_TIMEOUT
 * for the deadlines.
 *
 * - GHSA-4qhx-hhwf-8685: an activity whose id is on another origin than its actor;
 * - GHSA-8863-8468-7hq7: key ownership passed through an actor URL that redirects;
 * - GHSA-r388-57j3-5fgp: an embedded object escaping the origin check when it
 *   or its parent has no id;
 * - Update or Delete of another actor's object, from another server or the same one;
 * - GHSA-mc44-6cfg-2v6w: oversized documents (NodeInfo: Rookery never fetches it);
 * - GHSA-9pmv-w936-hj3f, GHSA-fq5h-gjhp-g75x, GHSA-64hq-2hgr-q4pm: WebFinger,
 *   delivery and NodeInfo without deadlines.
 */
import assert from "node:assert/strict";
import { eq, like } from "drizzle-orm";
import { accounts, statuses } from "../../db/schema/mod.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { type FakePeer, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { callJson } from "../fixtures/api.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

/**
 * Answers whose body is made as it is read: `head`, then `chunk` after
 * `chunk` (every `everyMs`) up to `total` bytes, then `tail`. The meter says
 * how much the readers took, and whether one gave up before the end.
 */
function meteredAnswers(head: string, chunk: string, tail: string, total: number, everyMs = 0) {
  const meter = { pulled: 0, cancelled: false };
  const encoder = new TextEncoder();
  const answer = (init: ResponseInit = {}) => {
    let made = 0;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(encoder.encode(head)),
      async pull(controller) {
        if (everyMs) await new Promise((resolve) => setTimeout(resolve, everyMs));
        if (made >= total) {
          controller.enqueue(encoder.encode(tail));
          return controller.close();
        }
        made += chunk.length;
        meter.pulled += chunk.length;
        controller.enqueue(encoder.encode(chunk));
      },
      cancel: () => {
        meter.cancelled = true;
      },
    });
    return new Response(body, init);
  };
  return { meter, answer };
}

/** Delivers `activity` signed as `actor` of `peer`; the answer's status. */
function deliverer(rookery: TestInstance) {
  const inbox = `${rookery.origin}/inbox`;
  const send = (request: Request) => rookery.request(request.url, request);
  return async (peer: FakePeer, actor: string, activity: Record<string, unknown>) =>
    await statusOf(
      await peer.deliver(inbox, { "@context": AS, ...activity }, {
        keyId: `${actor}#main-key`,
        send,
      }),
    );
}

test("Fedify's 2026 advisories: each class is refused by Rookery", async (t) => {
  const rookery = await startInstance();
  const victimHost = await startFakePeer();
  const attackerHost = await startFakePeer();
  const deliver = deliverer(rookery);
  const db = rookery.rookery.ctx.database.db;
  const victim = victimHost.publishActor("victim", { name: "The Victim" });
  const neighbour = victimHost.publishActor("neighbour");
  const attacker = attackerHost.publishActor("attacker");
  let serial = 0;
  const noteOf = (actor: string, content: string) => ({
    id: `${actor}/notes/${++serial}`,
    type: "Note",
    attributedTo: actor,
    to: [PUBLIC],
    content,
    published: new Date(Date.now() - 60_000).toISOString(),
  });
  const createOf = (actor: string, object: Record<string, unknown>, id?: string | null) => ({
    ...(id === null ? {} : { id: id ?? `${object.id}/activity` }),
    type: "Create",
    actor,
    to: [PUBLIC],
    object,
  });
  /** Once the attacker's marker post is stored, its earlier deliveries were handled. */
  const settle = async () => {
    const marker = noteOf(attacker, "marker");
    assert.equal(await deliver(attackerHost, attacker, createOf(attacker, marker)), 202);
    await eventually("the marker post", () => storedStatus(rookery, marker.id));
  };
  /** A post of `actor`'s that its server serves. */
  const published = (host: FakePeer, actor: string, content: string) => {
    const note = noteOf(actor, content);
    host.serve(new URL(note.id).pathname, { "@context": AS, ...note });
    return note;
  };
  // The victim's post, delivered by the victim: what the attackers go after.
  const target = published(victimHost, victim, "what the victim said");
  try {
    assert.equal(await deliver(victimHost, victim, createOf(victim, target)), 202);
    await eventually("the victim's post", () => storedStatus(rookery, target.id));
    await t.step("an activity id on another server than its actor's is refused", async () => {
      // The attacker takes the id the victim's next activity will have.
      const next = `${victim}/activities/next`;
      const squat = createOf(attacker, noteOf(attacker, "squatting"), next);
      assert.equal(await deliver(attackerHost, attacker, squat), 400);
      const announce = {
        id: `${victim}/boosts/1`,
        type: "Announce",
        actor: attacker,
        object: target.id,
      };
      assert.equal(await deliver(attackerHost, attacker, announce), 400);
      // A relayed Create may name the victim's next id too: it is read without it.
      const relayedNext = `${victim}/activities/next-2`;
      const old = published(victimHost, victim, "an older post");
      const relayed = { ...createOf(victim, old, relayedNext), object: old.id };
      assert.equal(await deliver(attackerHost, attacker, relayed), 202);
      await eventually("the relayed post, from its server", () => storedStatus(rookery, old.id));
      // The genuine activities with those ids are not taken for duplicates.
      for (const [n, id] of [[1, next], [2, relayedNext]] as const) {
        const genuine = noteOf(victim, `genuine ${n}`);
        assert.equal(await deliver(victimHost, victim, createOf(victim, genuine, id)), 202);
        await eventually(`genuine post ${n}`, () => storedStatus(rookery, genuine.id));
      }
      assert.equal(
        (await db.select().from(statuses).where(like(statuses.content, "%squat%"))).length,
        0,
      );
    });

    await t.step("a key is not owned through an actor URL that redirects", async () => {
      const redirect = (path: string, to: string) =>
        victimHost.route(
          path,
          () => new Response(null, { status: 302, headers: { Location: to } }),
        );
      const lure = (name: string, doc: Record<string, unknown>) => {
        attackerHost.serve(`/users/${name}`, {
          "@context": [AS, "https://w3id.org/security/v1"],
          id: `${attackerHost.origin}/users/${name}`,
          type: "Person",
          inbox: `${attackerHost.origin}/users/${name}/inbox`,
          ...doc,
        });
        return `${attackerHost.origin}/users/${name}`;
      };
      const pem = attackerHost.publicKeyPem;
      // The victim's server sends its actor URL on to the attacker's document (an open
      // redirect, a moved account): that document speaks for the attacker only.
      const a = `${victimHost.origin}/users/moved-a`;
      redirect(
        "/users/moved-a",
        lure("lure-a", { publicKey: { id: `${a}#main-key`, owner: a, publicKeyPem: pem } }),
      );
      const b = `${victimHost.origin}/users/moved-b`;
      redirect(
        "/users/moved-b",
        lure("lure-b", { id: b, publicKey: { id: `${b}#main-key`, owner: b, publicKeyPem: pem } }),
      );
      const c = `${victimHost.origin}/users/moved-c`;
      const standalone = `${attackerHost.origin}/keys/lure-c`;
      attackerHost.serve("/keys/lure-c", {
        "@context": [AS, "https://w3id.org/security/v1"],
        id: standalone,
        type: "CryptographicKey",
        owner: c,
        publicKeyPem: pem,
      });
      redirect("/users/moved-c", lure("lure-c", { publicKey: standalone }));
      for (const [actor, keyId] of [[a, `${a}#main-key`], [b, `${b}#main-key`], [c, standalone]]) {
        const note = noteOf(actor, "impersonated");
        const res = await attackerHost.deliver(`${rookery.origin}/inbox`, {
          "@context": AS,
          ...createOf(actor, note),
        }, { keyId, send: (request) => rookery.request(request.url, request) });
        assert.equal(await statusOf(res), 401, actor);
      }
      const taken = await db.select().from(accounts).where(like(accounts.uri, "%/users/moved-%"));
      assert.deepEqual(taken, []);
    });

    await t.step(
      "an embedded object without an id, or under an activity without one, is not trusted",
      async () => {
        const forged = { ...noteOf(victim, "forged words"), content: "forged words" };
        // No id on the Create: its embedded note, on the victim's server, is fetched from there.
        assert.equal(await deliver(attackerHost, attacker, createOf(attacker, forged, null)), 202);
        // A note without an id of its own, attributed to the victim.
        const { id: _id, ...anonymous } = forged;
        const anonymousCreate = createOf(attacker, anonymous, `${attacker}/creates/${++serial}`);
        assert.equal(await deliver(attackerHost, attacker, anonymousCreate), 202);
        // Updates without an id: of the victim's note, of the victim's profile.
        const edit = { ...target, content: "forged edit", updated: new Date().toISOString() };
        assert.equal(
          await deliver(attackerHost, attacker, { type: "Update", actor: attacker, object: edit }),
          202,
        );
        const rename = { id: victim, type: "Person", name: "Renamed by the attacker" };
        assert.equal(
          await deliver(attackerHost, attacker, {
            type: "Update",
            actor: attacker,
            object: rename,
          }),
          202,
        );
        // An Announce without an id embedding a forged copy.
        assert.equal(
          await deliver(attackerHost, attacker, {
            type: "Announce",
            actor: attacker,
            object: edit,
          }),
          202,
        );
        await settle();
        assert.equal(await storedStatus(rookery, forged.id), undefined);
        assert.equal(
          (await db.select().from(statuses).where(like(statuses.content, "%forged%"))).length,
          0,
        );
        const [row] = await db.select().from(accounts).where(eq(accounts.uri, victim));
        assert.equal(row.displayName, "The Victim");
      },
    );

    await t.step(
      "Update or Delete of another actor's object is ignored, even from its server",
      async () => {
        const edited = {
          ...target,
          content: "edited by someone else",
          updated: new Date().toISOString(),
        };
        for (const [peer, actor] of [[victimHost, neighbour], [attackerHost, attacker]] as const) {
          const activities = [
            { id: `${actor}#update-note-${++serial}`, type: "Update", actor, object: edited },
            {
              id: `${actor}#update-actor-${++serial}`,
              type: "Update",
              actor,
              object: { id: victim, type: "Person", name: "Renamed" },
            },
            { id: `${actor}#delete-note-${++serial}`, type: "Delete", actor, object: target.id },
            { id: `${actor}#delete-actor-${++serial}`, type: "Delete", actor, object: victim },
          ];
          for (const activity of activities) {
            assert.equal(await deliver(peer, actor, activity), 202, `${activity.type} by ${actor}`);
          }
        }
        await settle();
        const row = await storedStatus(rookery, target.id);
        assert.equal(row?.deletedAt, null);
        assert.match(row!.content, /what the victim said/);
        const [account] = await db.select().from(accounts).where(eq(accounts.uri, victim));
        assert.equal(account.displayName, "The Victim");
        assert.equal(account.deletedAt, null);
      },
    );

    await t.step("documents over 1 MiB are cut off unread; NodeInfo is never fetched", async () => {
      // A valid actor whose summary makes it 32 MiB, streamed without a length.
      const huge = `${attackerHost.origin}/users/huge`;
      const head = JSON.stringify({
        "@context": [AS, "https://w3id.org/security/v1"],
        id: huge,
        type: "Person",
        inbox: `${huge}/inbox`,
        publicKey: { id: `${huge}#main-key`, owner: huge, publicKeyPem: attackerHost.publicKeyPem },
      }).slice(0, -1) + ',"summary":"';
      const { answer, meter } = meteredAnswers(
        head,
        "x".repeat(64 * 1024),
        '"}',
        32 * 1024 * 1024,
      );
      attackerHost.route(
        "/users/huge",
        () => answer({ headers: { "Content-Type": "application/activity+json" } }),
      );
      assert.equal(await deliver(attackerHost, huge, createOf(huge, noteOf(huge, "big"))), 401);
      assert.ok(meter.pulled < 32 * 1024 * 1024, `${meter.pulled} bytes made`);
      for (const peer of [victimHost, attackerHost]) {
        assert.equal(peer.hits("/.well-known/nodeinfo"), 0);
      }
    });
  } finally {
    await victimHost.close();
    await attackerHost.close();
    await rookery.close({ destroy: true });
  }
});

test("Fedify's 2026 advisories: WebFinger and deliveries end at FETCH_TIMEOUT", async (t) => {
  const rookery = await startInstance({ env: { FETCH_TIMEOUT: "2" } });
  const peer = await startFakePeer();
  const alice = await createUser(rookery, "alice");
  const search = (handle: string) =>
    callJson(
      rookery,
      alice,
      "GET",
      `/api/v2/search?type=accounts&resolve=true&q=${encodeURIComponent(handle)}`,
    );
  const domain = new URL(peer.origin).host;
  const someone = peer.publishActor("someone");
  const subject = `acct:someone@${domain}`;
  const links = [{ rel: "self", type: "application/activity+json", href: someone }];
  const asJrd = { headers: { "Content-Type": "application/jrd+json" } };
  try {
    await t.step("a WebFinger answer over 64 KiB is not read to its end", async () => {
      // Its only `self` link comes after 1 MiB of aliases.
      const head = JSON.stringify({ subject }).slice(0, -1) + ',"aliases":["';
      const { answer } = meteredAnswers(
        head,
        "x".repeat(16 * 1024),
        `"],"links":${JSON.stringify(links)}}`,
        1024 * 1024,
      );
      peer.route("/.well-known/webfinger", () => answer(asJrd));
      const found = await search(`@someone@${domain}`);
      assert.equal(found.status, 200);
      assert.deepEqual(found.body.accounts, []);
    });

    await t.step("a WebFinger server that never answers, or trickles, is given up", async () => {
      let abandoned = false;
      peer.route("/.well-known/webfinger", peer.stall(() => abandoned = true));
      const stalled = await search(`@someone@${domain}`);
      assert.equal(stalled.status, 200);
      await eventually("the stalled lookup given up", () => Promise.resolve(abandoned));
      // A space every 200 ms, for ever.
      const { answer, meter } = meteredAnswers(
        JSON.stringify({ subject }).slice(0, -1),
        " ",
        "}",
        1e9,
        200,
      );
      peer.route("/.well-known/webfinger", () => answer(asJrd));
      const trickled = await search(`@someone@${domain}`);
      assert.equal(trickled.status, 200);
      await eventually("the trickling answer cut off", () => Promise.resolve(meter.cancelled));
      peer.route("/.well-known/webfinger", () => new Response("none", { status: 404 }));
    });

    await t.step("a delivery whose inbox trickles its answer is cut off", async () => {
      const follower = peer.publishActor("follower");
      const { answer, meter } = meteredAnswers("", " ", "", 1e9, 200);
      peer.route("/users/follower/inbox", () => answer({ status: 500 }));
      const follow = {
        "@context": AS,
        id: `${follower}#follows/1`,
        type: "Follow",
        actor: follower,
        object: `${rookery.origin}/users/${alice.username}`,
      };
      const res = await peer.deliver(`${rookery.origin}/inbox`, follow, {
        keyId: `${follower}#main-key`,
        send: (request) => rookery.request(request.url, request),
      });
      assert.equal(await statusOf(res), 202);
      // The Accept to the follower's inbox: its answer never ends, the deadline ends it.
      await eventually("the Accept's answer cut off", () => Promise.resolve(meter.cancelled));
      assert.equal(peer.hits("/.well-known/nodeinfo"), 0);
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
