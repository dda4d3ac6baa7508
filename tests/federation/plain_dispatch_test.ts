/**
 * Plainly shaped Create(Note)s are run from the queue without Fedify's
 * JSON-LD parse (federation/inbox/plain_create.ts, plain_dispatch.ts):
 * what a Mastodon-shaped note says reaches the API as before (texts, the
 * content warning, language, hashtags, the mention of a local user and its
 * notification; a Mastodon 4.5 note's emoji, media and quote policy).
 * Replay protection on that path: tests/federation/inbox_marks_test.ts;
 * that each accepted document reads as Fedify reads it: plain_create_test.ts.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { arrived } from "../fixtures/federation.ts";
import { ok } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { plainCreate } from "../../federation/inbox/plain_create.ts";
import { MASTODON_45_CONTEXT } from "./plain_documents.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
const MASTODON_CONTEXT = [
  AS,
  "https://w3id.org/security/v1",
  {
    ostatus: "http://ostatus.org#",
    atomUri: "ostatus:atomUri",
    conversation: "ostatus:conversation",
    sensitive: "as:sensitive",
    toot: "http://joinmastodon.org/ns#",
    Hashtag: "as:Hashtag",
  },
];

test("a Mastodon-shaped Create(Note) without Fedify's parse reads as before", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  const actor = peer.publishActor("gargamel", {
    followers: `${peer.origin}/users/gargamel/followers`,
  });
  const send = (request: Request) => rookery.request(request.url, request);
  const deliver = async (inbox: string, activity: Record<string, unknown>) =>
    await statusOf(await peer.deliver(inbox, activity, { keyId: `${actor}#main-key`, send }));
  const alice = await createUser(rookery, "alice");
  const aliceUri = `${rookery.origin}/users/alice`;
  const create = (name: string, note: Record<string, unknown> = {}) => {
    const id = `${actor}/statuses/${name}`;
    const published = new Date().toISOString();
    return {
      "@context": MASTODON_CONTEXT,
      id: `${id}/activity`,
      type: "Create",
      actor,
      published,
      to: [PUBLIC],
      cc: [`${actor}/followers`],
      object: {
        id,
        type: "Note",
        summary: null,
        inReplyTo: null,
        published,
        url: `${peer.origin}/@gargamel/${name}`,
        attributedTo: actor,
        to: [PUBLIC],
        cc: [`${actor}/followers`],
        sensitive: false,
        atomUri: id,
        conversation: `tag:peer,2026:objectId=${name}:objectType=Conversation`,
        content: `<p>${name}</p>`,
        contentMap: { en: `<p>${name}</p>` },
        attachment: [],
        tag: [],
        ...note,
      },
    };
  };
  try {
    await t.step("texts, warning, language, hashtag and a mention of a local user", async () => {
      const activity = create("spells", {
        summary: "Spoilers",
        sensitive: true,
        // Mentioned by its tag alone (not addressed): only the tag says so.
        content: '<p><a href="/@alice" class="u-url mention">@alice</a> #Potions</p>',
        contentMap: { fr: "<p>@alice #Potions</p>" },
        tag: [
          { type: "Mention", href: aliceUri, name: "@alice" },
          { type: "Hashtag", href: `${peer.origin}/tags/potions`, name: "#Potions" },
        ],
      });
      assert.equal(await deliver(`${rookery.origin}/users/alice/inbox`, activity), 202);
      const row = await arrived(rookery, activity.object.id);
      const status = await ok(rookery, alice, "GET", `/api/v1/statuses/${row.id}`);
      assert.equal(status.spoiler_text, "Spoilers");
      assert.equal(status.sensitive, true);
      assert.equal(status.language, "fr");
      assert.equal(status.url, activity.object.url);
      assert.deepEqual(status.tags.map((tag: { name: string }) => tag.name), ["potions"]);
      assert.deepEqual(status.mentions.map((m: { acct: string }) => m.acct), ["alice"]);
      const mentions = await ok(rookery, alice, "GET", "/api/v1/notifications?types[]=mention");
      assert.deepEqual(mentions.map((n: { status: { id: string } }) => n.status.id), [row.id]);
    });
    await t.step("a Mastodon 4.5 note: its emoji, its image and who may quote it", async () => {
      const activity = {
        ...create("cauldron", {
          content: '<p>Stirring :smurf: <a href="/tags/potions">#Potions</a></p>',
          contentMap: { en: "<p>Stirring :smurf: #Potions</p>" },
          attachment: [{
            type: "Document",
            mediaType: "image/png",
            url: `${peer.origin}/media/cauldron.png`,
            name: "A cauldron",
            blurhash: "UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH",
            focalPoint: [-0.5, 0.25],
            width: 1200,
            height: 800,
          }],
          tag: [
            { type: "Hashtag", href: `${peer.origin}/tags/potions`, name: "#Potions" },
            {
              id: `${peer.origin}/emojis/4`,
              type: "Emoji",
              name: ":smurf:",
              updated: "2024-06-01T08:00:00Z",
              icon: { type: "Image", mediaType: "image/png", url: `${peer.origin}/e/smurf.png` },
            },
          ],
          interactionPolicy: { canQuote: { automaticApproval: [PUBLIC] } },
        }),
        "@context": MASTODON_45_CONTEXT,
      };
      assert.ok(plainCreate(structuredClone(activity)), "read without Fedify's parse");
      assert.equal(await deliver(`${rookery.origin}/inbox`, activity), 202);
      const row = await arrived(rookery, activity.object.id);
      const status = await ok(rookery, alice, "GET", `/api/v1/statuses/${row.id}`);
      assert.deepEqual(status.emojis.map((e: { shortcode: string }) => e.shortcode), ["smurf"]);
      assert.deepEqual(status.tags.map((tag: { name: string }) => tag.name), ["potions"]);
      assert.equal(status.media_attachments.length, 1);
      const [media] = status.media_attachments;
      assert.equal(media.type, "image");
      assert.equal(media.remote_url, `${peer.origin}/media/cauldron.png`);
      assert.equal(media.description, "A cauldron");
      assert.equal(media.blurhash, "UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH");
      assert.deepEqual(media.meta.focus, { x: -0.5, y: 0.25 });
      assert.deepEqual(status.quote_approval.automatic, ["public"]);
    });
  } finally {
    await peer.close();
    await rookery.close();
  }
});
