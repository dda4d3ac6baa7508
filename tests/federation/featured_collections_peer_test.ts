/**
 * Collections (FEP-7aa9) against a hand-written peer that writes the
 * documents as Mastodon 4.7 does (tests/fixtures/fake_peer.ts): our actor's
 * `featuredCollections` and `canFeature`; FeatureRequests for our members
 * in the FEP's spelling, Mastodon's and a compact one without context
 * (accepted with a stamp we serve, or rejected by the member's policy, or
 * rejected when the collection is not the sender's or cannot be read); answers to our
 * own requests (a stamp on another host is not taken); items of a remote
 * collection checked against their stamps (gone, or naming another
 * collection: rejected); the 151st item; an actor without a policy.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { accounts, collectionItems, collections } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { callJson, ok } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { resolveRemoteAccount } from "../../federation/remote/accounts.ts";
import { AP_ACCEPT } from "./helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
const FEP = "https://w3id.org/fep/7aa9#";

type Json = Record<string, any>;

/** The context Mastodon 4.7 writes on FEP-7aa9 documents. */
const MASTODON_CONTEXT = [AS, {
  gts: "https://gotosocial.org/ns#",
  toot: "http://joinmastodon.org/ns#",
  FeaturedCollection: `${FEP}FeaturedCollection`,
  FeaturedItem: `${FEP}FeaturedItem`,
  FeatureRequest: `${FEP}FeatureRequest`,
  FeatureAuthorization: `${FEP}FeatureAuthorization`,
  featuredObject: { "@id": `${FEP}featuredObject`, "@type": "@id" },
  featuredObjectType: `${FEP}featuredObjectType`,
  featureAuthorization: { "@id": `${FEP}featureAuthorization`, "@type": "@id" },
  featuredCollections: { "@id": `${FEP}featuredCollections`, "@type": "@id" },
  interactingObject: { "@id": "gts:interactingObject", "@type": "@id" },
  interactionTarget: { "@id": "gts:interactionTarget", "@type": "@id" },
  interactionPolicy: { "@id": "gts:interactionPolicy", "@type": "@id" },
  canFeature: { "@id": `${FEP}canFeature`, "@type": "@id" },
  automaticApproval: { "@id": "gts:automaticApproval", "@type": "@id" },
  manualApproval: { "@id": "gts:manualApproval", "@type": "@id" },
  discoverable: "toot:discoverable",
}];

test("collections against a Mastodon-shaped peer (FEP-7aa9)", async (t) => {
  const rookery = await startInstance({ listen: true });
  const peer = await startFakePeer();
  const send = (request: Request) => rookery.request(request.url, request);
  const db = rookery.rookery.ctx.database.db;
  /** What the peer's inboxes received, in order. */
  const received: Json[] = [];
  /** A Mastodon 4.7 actor on the peer; `policy` null publishes none. */
  const publish = (name: string, policy: string[] | null) => {
    const id = peer.actor(name);
    peer.publishActor(name, {
      "@context": [...MASTODON_CONTEXT, "https://w3id.org/security/v1"],
      discoverable: true,
      followers: `${id}/followers`,
      featuredCollections: `${id}/featured_collections`,
      ...(policy
        ? { interactionPolicy: { canFeature: { automaticApproval: policy, manualApproval: [] } } }
        : {}),
    });
    peer.route(`/users/${name}/inbox`, async (request) => {
      received.push(await request.json());
      return new Response(null, { status: 202 });
    });
    return id;
  };
  const curator = publish("curator", [PUBLIC]);
  const pam = publish("pam", [PUBLIC]);
  const nopolicy = publish("nopolicy", null);
  const deliver = async (actor: string, activity: Json, context: unknown = MASTODON_CONTEXT) => {
    const body = { "@context": context, actor, ...activity };
    const res = await peer.deliver(`${rookery.origin}/inbox`, body, {
      keyId: `${actor}#main-key`,
      send,
    });
    assert.equal(await statusOf(res), 202);
  };
  /** The peer's collection `n`, attributed to `owner`, with `items`. */
  const serveCollection = (n: number, owner: string, items: Json[] = []) => {
    const id = `${peer.origin}/collections/${n}`;
    peer.serve(`/collections/${n}`, {
      "@context": MASTODON_CONTEXT,
      id,
      type: "FeaturedCollection",
      name: `Collection ${n}`,
      attributedTo: owner,
      summary: "<p>Good <script>x</script>people</p>",
      sensitive: false,
      discoverable: true,
      totalItems: items.length,
      orderedItems: items,
    });
    return id;
  };
  const answerTo = (requestId: string) =>
    eventually(
      `the answer to ${requestId}`,
      () => Promise.resolve(received.find((a) => a.object === requestId)),
    );
  const discoverable = { account: { discoverable: true } };
  const [alice, amy, ann] = await Promise.all(
    ["alice", "amy", "ann"].map((name) => createUser(rookery, name, discoverable)),
  );
  const lena = await createUser(rookery, "lena", { account: { discoverable: false } });
  await createUser(rookery, "lou", { account: { discoverable: true, locked: true } });
  let serial = 0;
  const requestId = () => `${curator}/feature_requests/${++serial}`;
  try {
    await t.step("our actor's featuredCollections and canFeature", async () => {
      const actorOf = async (name: string) =>
        await (await rookery.request(`/users/${name}`, { headers: { Accept: AP_ACCEPT } })).json();
      const doc = await actorOf("alice");
      assert.equal(doc.featuredCollections, `${rookery.origin}/users/alice/featured_collections`);
      assert.deepEqual(doc.interactionPolicy, { canFeature: { automaticApproval: [PUBLIC] } });
      const context = doc["@context"].find((c: unknown) => typeof c === "object");
      assert.deepEqual(context.featuredCollections, {
        "@id": `${FEP}featuredCollections`,
        "@type": "@id",
      });
      assert.deepEqual(context.canFeature, { "@id": `${FEP}canFeature`, "@type": "@id" });
      assert.ok(doc["@context"].includes("https://gotosocial.org/ns"));
      assert.deepEqual((await actorOf("lou")).interactionPolicy.canFeature.automaticApproval, [
        `${rookery.origin}/users/lou/followers`,
      ]);
      assert.deepEqual((await actorOf("lena")).interactionPolicy.canFeature.automaticApproval, [
        `${rookery.origin}/users/lena`,
      ]);
      const list = await (await rookery.request("/users/alice/featured_collections", {
        headers: { Accept: AP_ACCEPT },
      })).json();
      assert.deepEqual(list, {
        "@context": AS,
        id: `${rookery.origin}/users/alice/featured_collections`,
        type: "Collection",
        totalItems: 0,
        first: `${rookery.origin}/users/alice/featured_collections?page=1`,
      });
    });

    const collection = serveCollection(1, curator);
    await t.step("FeatureRequests in three spellings are accepted with a stamp", async () => {
      const spellings: [typeof alice, string, unknown][] = [
        [alice, "FeatureRequest", MASTODON_CONTEXT],
        [amy, "http://joinmastodon.org/ns#FeatureRequest", AS],
        [ann, "FeatureRequest", AS],
      ];
      for (const [member, type, context] of spellings) {
        const id = requestId();
        await deliver(curator, {
          id,
          type,
          to: [`${rookery.origin}/users/${member.username}`],
          object: `${rookery.origin}/users/${member.username}`,
          instrument: collection,
        }, context);
        const accept = await answerTo(id);
        assert.equal(accept.type, "Accept", JSON.stringify(accept));
        assert.equal(accept.actor, `${rookery.origin}/users/${member.username}`);
        assert.deepEqual(accept.to, [curator]);
        assert.match(
          accept.result,
          new RegExp(`^${rookery.origin}/users/${member.username}/feature_authorizations/\\d+$`),
        );
        const stamp = await (await rookery.request(accept.result, {
          headers: { Accept: AP_ACCEPT },
        })).json();
        assert.equal(stamp.id, accept.result);
        assert.equal(stamp.type, "FeatureAuthorization");
        assert.equal(stamp.interactingObject, collection);
        assert.equal(stamp.interactionTarget, `${rookery.origin}/users/${member.username}`);
        const types = (await ok(rookery, member, "GET", "/api/v1/notifications"))
          .map((n: Json) => n.type);
        assert.ok(types.includes("added_to_collection"), JSON.stringify(types));
      }
      // The collection is kept as the curator's, its description sanitized.
      const [copy] = await db.select().from(collections).where(eq(collections.uri, collection));
      assert.equal(copy.local, false);
      assert.equal(copy.descriptionHtml, "<p>Good people</p>");
    });

    await t.step("a policy refusal is a Reject; so is another's collection", async () => {
      const refused = requestId();
      await deliver(curator, {
        id: refused,
        type: "FeatureRequest",
        object: `${rookery.origin}/users/lena`,
        instrument: collection,
      });
      assert.equal((await answerTo(refused)).type, "Reject");
      const notTheirs = requestId();
      await deliver(curator, {
        id: notTheirs,
        type: "FeatureRequest",
        object: `${rookery.origin}/users/${alice.username}`,
        instrument: serveCollection(2, pam),
      });
      const reject = await answerTo(notTheirs);
      assert.equal(reject.type, "Reject", JSON.stringify(reject));
      assert.equal(reject.actor, `${rookery.origin}/users/${alice.username}`);
      assert.deepEqual(reject.to, [curator]);
      assert.equal(reject.result, undefined);
      assert.match(
        reject.id,
        new RegExp(`^${rookery.origin}/users/${alice.username}#rejects/feature_requests/\\d+$`),
      );
      // A collection its server does not give, or none: rejected too, though
      // Alice's policy would let the curator feature her.
      const gone = requestId();
      await deliver(curator, {
        id: gone,
        type: "FeatureRequest",
        object: `${rookery.origin}/users/${alice.username}`,
        instrument: `${peer.origin}/collections/404`,
      });
      assert.equal((await answerTo(gone)).type, "Reject");
      const bare = requestId();
      await deliver(curator, {
        id: bare,
        type: "FeatureRequest",
        object: `${rookery.origin}/users/${alice.username}`,
      });
      assert.equal((await answerTo(bare)).type, "Reject");
      const rows = await db.select().from(collectionItems)
        .where(eq(collectionItems.accountId, lena.id));
      assert.deepEqual(rows, []);
      // Alice, whom the curator may feature, is in its own collection only.
      const alices = await db.select({ collectionId: collectionItems.collectionId })
        .from(collectionItems).where(eq(collectionItems.accountId, alice.id));
      assert.equal(alices.length, 1);
      assert.equal(
        (await db.select().from(collections).where(
          eq(collections.uri, `${peer.origin}/collections/2`),
        ))
          .length,
        0,
      );
    });

    await t.step("an answer to our request: a stamp on another host is not taken", async () => {
      const pamId = (await resolveRemoteAccount(rookery.rookery.ctx, pam))!.id;
      const created = (await ok(rookery, alice, "POST", "/api/v1/collections", {
        name: "With pam",
        account_ids: [pamId],
      })).collection;
      const request = await eventually(
        "our FeatureRequest",
        () => Promise.resolve(received.find((a) => a.type === "FeatureRequest")),
      );
      assert.deepEqual(request["@context"], [AS, request["@context"][1]]);
      assert.equal(request.actor, `${rookery.origin}/users/alice`);
      assert.equal(request.object, pam);
      assert.equal(request.instrument, created.uri);
      await deliver(pam, {
        id: `${pam}#accepts/1`,
        type: "Accept",
        object: request.id,
        result: "http://elsewhere.example/users/pam/feature_authorizations/1",
      });
      // Someone else's Reject of it is not taken either.
      await deliver(curator, { id: `${curator}#rejects/1`, type: "Reject", object: request.id });
      const stamp = `${pam}/feature_authorizations/1`;
      await deliver(pam, {
        id: `${pam}#accepts/2`,
        type: "Accept",
        object: request.id,
        result: stamp,
      });
      const item = await eventually("pam accepted", async () => {
        const [row] = await db.select().from(collectionItems)
          .where(and(eq(collectionItems.accountId, pamId), eq(collectionItems.state, "accepted")));
        return row;
      });
      assert.equal(item.approvalUri, stamp);
    });

    await t.step("items of a remote collection are checked against their stamps", async () => {
      const [copy] = await db.select().from(collections).where(eq(collections.uri, collection));
      const stampFor = (n: number, interactingObject: string) => {
        const id = `${pam}/feature_authorizations/${n}`;
        peer.serve(`/users/pam/feature_authorizations/${n}`, {
          "@context": MASTODON_CONTEXT,
          id,
          type: "FeatureAuthorization",
          interactingObject,
          interactionTarget: pam,
        });
        return id;
      };
      const add = (n: number, featureAuthorization: string) =>
        deliver(curator, {
          id: `${collection}/items/${n}#add`,
          type: "Add",
          target: collection,
          object: {
            id: `${collection}/items/${n}`,
            type: "FeaturedItem",
            featuredObject: pam,
            featuredObjectType: "Person",
            featureAuthorization,
          },
        });
      const stateOf = (n: number) =>
        eventually(`item ${n} checked`, async () => {
          const [row] = await db.select().from(collectionItems)
            .where(eq(collectionItems.uri, `${collection}/items/${n}`));
          return row?.state !== "pending" && row?.state;
        });
      await add(10, `${pam}/feature_authorizations/404`);
      assert.equal(await stateOf(10), "rejected");
      await add(11, stampFor(11, `${peer.origin}/collections/other`));
      assert.equal(await stateOf(11), "rejected");
      await add(12, stampFor(12, collection));
      assert.equal(await stateOf(12), "accepted");
      const [row] = await db.select().from(collectionItems)
        .where(eq(collectionItems.uri, `${collection}/items/12`));
      const [member] = await db.select().from(accounts).where(eq(accounts.id, row.accountId!));
      assert.equal(member.uri, pam);

      // A full collection (150 items) takes no 151st.
      const count = (await db.select().from(collectionItems)
        .where(eq(collectionItems.collectionId, copy.id))).length;
      await db.insert(collectionItems).values(
        Array.from({ length: 150 - count }, (_, i) => ({
          id: newId(),
          collectionId: copy.id,
          state: "rejected" as const,
          position: 100 + i,
          uri: `${collection}/items/filler-${i}`,
        })),
      );
      await add(13, stampFor(13, collection));
      // The next activity of the curator is applied after it.
      const marker = requestId();
      await deliver(curator, {
        id: marker,
        type: "FeatureRequest",
        object: `${rookery.origin}/users/lena`,
        instrument: collection,
      });
      await answerTo(marker);
      const thirteenth = await db.select().from(collectionItems)
        .where(eq(collectionItems.uri, `${collection}/items/13`));
      assert.deepEqual(thirteenth, []);
    });

    await t.step("canFeature is read in compact, prefixed and full-IRI spellings", async () => {
      const spelled = (name: string, document: Json) => {
        const id = peer.actor(name);
        peer.publishActor(name, { followers: `${id}/followers`, ...document });
        return id;
      };
      const compact = spelled("compact", {
        "@context": [AS, "https://w3id.org/security/v1"],
        featuredCollections: `${peer.actor("compact")}/featured_collections`,
        interactionPolicy: {
          canFeature: { automaticApproval: "as:Public", manualApproval: [] },
        },
      });
      const prefixed = spelled("prefixed", {
        "@context": [AS, "https://w3id.org/security/v1", {
          fep: FEP,
          gts: "https://gotosocial.org/ns#",
        }],
        "fep:featuredCollections": `${peer.actor("prefixed")}/featured_collections`,
        "gts:interactionPolicy": {
          "fep:canFeature": {
            "gts:automaticApproval": [`${peer.actor("prefixed")}/followers`],
            "gts:manualApproval": [PUBLIC],
          },
        },
      });
      const full = spelled("full", {
        "@context": [AS, "https://w3id.org/security/v1"],
        [`${FEP}featuredCollections`]: { "@id": `${peer.actor("full")}/featured_collections` },
        "https://gotosocial.org/ns#interactionPolicy": {
          "http://joinmastodon.org/ns#canFeature": {
            "https://gotosocial.org/ns#automaticApproval": [{ "@id": "https://example.com/x" }],
          },
        },
      });
      const expected: [string, unknown][] = [
        [compact, { automatic: ["public"], manual: [] }],
        [prefixed, { automatic: ["followers"], manual: ["public"] }],
        [full, { automatic: ["unsupported_policy"], manual: [] }],
      ];
      for (const [actor, policy] of expected) {
        const row = (await resolveRemoteAccount(rookery.rookery.ctx, actor))!;
        assert.deepEqual(row.featurePolicy, policy, actor);
        assert.equal(row.featuredCollectionsUrl, `${actor}/featured_collections`);
      }
    });

    await t.step("an actor without a feature policy cannot be featured", async () => {
      const row = (await resolveRemoteAccount(rookery.rookery.ctx, nopolicy))!;
      assert.equal(row.featurePolicy, null);
      assert.equal(row.featuredCollectionsUrl, `${nopolicy}/featured_collections`);
      const [collectionOfAlice] = (await ok(
        rookery,
        alice,
        "GET",
        `/api/v1/accounts/${alice.id}/collections`,
      )).collections;
      const res = await callJson(
        rookery,
        alice,
        "POST",
        `/api/v1/collections/${collectionOfAlice.id}/items`,
        { account_id: row.id },
      );
      assert.equal(res.status, 403);
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
