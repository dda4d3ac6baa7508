/**
 * A remote actor's featuredTags collection (federation/remote/featured_tags_sync.ts):
 * a plain-context peer (only the ActivityStreams context) lists Hashtag
 * items in several spellings; after the actor is resolved by search,
 * GET /api/v1/accounts/:id/featured_tags shows the usable ones (hostile
 * items skipped), with counters from the account's posts we have; an Update
 * of the actor whose collection drops a tag removes it; a paged collection
 * is read from its first page.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { startFakePeer } from "../fixtures/fake_peer.ts";
import { ok } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

test("featuredTags of a plain-context peer: read on resolve, replaced on Update", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  try {
    const viewer = await createUser(rookery, "viewer");
    const actor = peer.actor("tagger");
    const tagsUrl = `${actor}/collections/tags`;
    const actorDoc = {
      "@context": [AS, "https://w3id.org/security/v1"],
      id: actor,
      type: "Person",
      preferredUsername: "tagger",
      inbox: `${actor}/inbox`,
      followers: `${actor}/followers`,
      featuredTags: tagsUrl,
      publicKey: { id: `${actor}#main-key`, owner: actor, publicKeyPem: peer.publicKeyPem },
    };
    peer.serve("/users/tagger", actorDoc);
    peer.route("/users/tagger/inbox", () => new Response(null, { status: 202 }));
    const serveTags = (items: unknown[]) =>
      peer.serve("/users/tagger/collections/tags", {
        "@context": AS,
        id: tagsUrl,
        type: "Collection",
        totalItems: items.length,
        items,
      });
    serveTags([
      { type: "Hashtag", name: "#Gardening", href: `${peer.origin}/tags/gardening` },
      {
        type: `${AS}#Hashtag`,
        [`${AS}#name`]: "#Compost",
        [`${AS}#href`]: `${peer.origin}/tags/compost`,
      },
      { type: "Hashtag", name: "#Sneaky", href: "javascript:alert(1)" },
      { type: "Hashtag", name: "#not valid!" },
      { type: "Mention", name: "@someone", href: `${peer.origin}/users/someone` },
    ]);
    const send = (request: Request) => rookery.request(request.url, request);
    const deliver = async (activity: Record<string, unknown>) => {
      const res = await peer.deliver(`${rookery.origin}/inbox`, activity, {
        keyId: `${actor}#main-key`,
        send,
      });
      await res.body?.cancel();
      return res.status;
    };
    const featured = async (id: string) =>
      (await ok(rookery, viewer, "GET", `/api/v1/accounts/${id}/featured_tags`)) as {
        name: string;
        url: string;
        statuses_count: string;
        last_status_at: string | null;
      }[];

    let accountId = "";
    await t.step("search resolve reads the collection", async () => {
      const found = await ok(
        rookery,
        viewer,
        "GET",
        `/api/v2/search?resolve=true&q=${encodeURIComponent(actor)}`,
      );
      assert.equal(found.accounts.length, 1);
      accountId = found.accounts[0].id;
      const tags = await eventually("the featured tags", async () => {
        const list = await featured(accountId);
        return list.length >= 2 ? list : null;
      });
      assert.deepEqual(tags.map((tag) => tag.name).sort(), ["Compost", "Gardening"]);
      const host = new URL(peer.origin).host;
      const gardening = tags.find((tag) => tag.name === "Gardening")!;
      assert.equal(gardening.url, `${rookery.origin}/@tagger@${host}/tagged/Gardening`);
      assert.equal(gardening.statuses_count, "0");
      assert.equal(gardening.last_status_at, null);
    });

    await t.step("an Update of the actor whose collection drops a tag removes it", async () => {
      // A post of theirs with the tag we keep: its counters come from what we store.
      assert.equal(
        await deliver({
          "@context": AS,
          id: `${peer.origin}/notes/1#create`,
          type: "Create",
          actor,
          to: [PUBLIC],
          object: {
            id: `${peer.origin}/notes/1`,
            type: "Note",
            attributedTo: actor,
            to: [PUBLIC],
            content: "<p>#Gardening today</p>",
            published: "2025-06-01T10:00:00Z",
            tag: [{ type: "Hashtag", name: "#Gardening" }],
          },
        }),
        202,
      );
      serveTags([{ type: "Hashtag", name: "#Gardening" }]);
      assert.equal(
        await deliver({
          "@context": AS,
          id: `${actor}#update-1`,
          type: "Update",
          actor,
          to: [PUBLIC],
          object: { ...actorDoc, name: "Tagger" },
        }),
        202,
      );
      const tags = await eventually("Compost removed", async () => {
        const list = await featured(accountId);
        return list.length === 1 && list[0].statuses_count === "1" ? list : null;
      });
      assert.equal(tags[0].name, "Gardening");
      assert.equal(tags[0].last_status_at, "2025-06-01");
    });

    await t.step("a paged collection: the first page, fetched by its URL, is read", async () => {
      peer.serve("/users/tagger/collections/tags", {
        "@context": AS,
        id: tagsUrl,
        type: "OrderedCollection",
        totalItems: 2,
        first: `${tagsUrl}/page1`,
      });
      peer.serve("/users/tagger/collections/tags/page1", {
        "@context": AS,
        id: `${tagsUrl}/page1`,
        type: "OrderedCollectionPage",
        partOf: tagsUrl,
        orderedItems: [{ type: "Hashtag", name: "#Paged" }, {
          type: "Hashtag",
          name: "#Gardening",
        }],
      });
      assert.equal(
        await deliver({
          "@context": AS,
          id: `${actor}#update-2`,
          type: "Update",
          actor,
          to: [PUBLIC],
          object: { ...actorDoc, name: "Tagger again" },
        }),
        202,
      );
      const tags = await eventually("the paged tags", async () => {
        const list = await featured(accountId);
        return list.length === 2 ? list : null;
      });
      assert.deepEqual(tags.map((tag) => tag.name).sort(), ["Gardening", "Paged"]);
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
