/**
 * The parse of an inbound Create(Note), alone: Fedify's JSON-LD reading
 * (`Activity.fromJsonLd` with the context loader the server uses, then the
 * embedded note, as the inbox listener asks for it) against
 * federation/inbox/plain_create.ts's reading of the same JSON. Run with
 * `deno bench -A bench/inbound_parse_bench.ts`; the documents are the
 * inbound bench's (bench/inbound.ts, both its shapes: minimal and as
 * Mastodon 4.5 writes a note with an emoji, an image and its interaction
 * policy) and a note as Mastodon before 4.5 wrote one.
 */
import { Activity } from "@fedify/vocab";
import { contextLoader } from "../federation/fetch/document_loader.ts";
import { plainCreate } from "../federation/inbox/plain_create.ts";
import { inboundCreate } from "./inbound.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const ACTOR = "http://127.0.0.1:4000/users/loadgen";
const noFetch = () => Promise.reject(new Error("not fetched"));

/** bench/inbound.ts's delivery, minimal. */
const benchCreate = (i: number) =>
  inboundCreate("minimal", ACTOR, `${ACTOR}/notes/parse-${i}`, `parse ${i}`);

/** A note as Mastodon writes one: its context, a mention, a hashtag, a language map. */
function mastodonCreate(i: number) {
  const doc = benchCreate(i);
  const note = doc.object as Record<string, unknown>;
  return {
    ...doc,
    "@context": [AS, "https://w3id.org/security/v1", {
      ostatus: "http://ostatus.org#",
      atomUri: "ostatus:atomUri",
      conversation: "ostatus:conversation",
      sensitive: "as:sensitive",
      toot: "http://joinmastodon.org/ns#",
      Hashtag: "as:Hashtag",
    }],
    object: {
      ...note,
      summary: null,
      inReplyTo: null,
      url: `${ACTOR.replace("/users/", "/@")}/${i}`,
      sensitive: false,
      atomUri: note.id,
      conversation: `tag:127.0.0.1,2026:objectId=${i}:objectType=Conversation`,
      contentMap: { en: note.content },
      attachment: [],
      tag: [
        { type: "Mention", href: `${ACTOR}s/alice`, name: "@alice" },
        { type: "Hashtag", href: "http://127.0.0.1:4000/tags/bench", name: "#bench" },
      ],
    },
  };
}

let n = 0;
const mastodon45 = (i: number) =>
  inboundCreate("mastodon45", ACTOR, `${ACTOR}/notes/parse-${i}`, `parse ${i}`);
const shapes = [
  ["bench", benchCreate],
  ["Mastodon", mastodonCreate],
  ["Mastodon 4.5", mastodon45],
] as const;
for (const [shape, make] of shapes) {
  Deno.bench(`Fedify's JSON-LD parse (${shape})`, { group: shape, baseline: true }, async () => {
    const activity = await Activity.fromJsonLd(make(n++), {
      contextLoader,
      documentLoader: noFetch,
    });
    await activity.getObject({ documentLoader: noFetch });
  });
  Deno.bench(`plain_create.ts (${shape})`, { group: shape }, async () => {
    const activity = plainCreate(make(n++));
    if (!activity) throw new Error("not read");
    await activity.getObject({ documentLoader: noFetch });
  });
}
