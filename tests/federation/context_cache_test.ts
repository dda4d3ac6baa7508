/**
 * The context loader tags the bundled contexts `static`, so jsonld.js keeps
 * them resolved and processed from one expansion to the next
 * (federation/fetch/document_loader.ts). The parse must not change: every
 * object of the peers corpus (tests/federation/fixtures/peers/: Mastodon,
 * Misskey, Pleroma, GoToSocial, snac, WordPress, PeerTube…), delivered in a
 * Create as the queued inbox handler parses it, reads the same through the
 * cached contexts as through contexts loaded afresh for every expansion.
 */
import assert from "node:assert/strict";
import { Activity, type DocumentLoader } from "@fedify/vocab";
import { contextLoader } from "../../federation/fetch/document_loader.ts";
import { test } from "../harness.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PEER = "https://peer.example";
const FAMILIES = new URL("./fixtures/peers/", import.meta.url);

/** The loader as it was: the same documents, untagged (resolved again at each expansion). */
const untagged: DocumentLoader = async (url, options) => {
  const { tag: _, ...document } = await contextLoader(url, options) as { tag?: string };
  return document as Awaited<ReturnType<DocumentLoader>>;
};
const noFetch: DocumentLoader = () => Promise.reject(new Error("not fetched"));

/** Every object of every family, placeholders filled, wrapped in a Create by its author. */
function corpusCreates(): { family: string; create: Record<string, unknown> }[] {
  const creates = [];
  for (const entry of Deno.readDirSync(FAMILIES)) {
    const text = Deno.readTextFileSync(new URL(`${entry.name}/peer.json`, FAMILIES))
      .replaceAll("{{peer}}", PEER).replaceAll("{{pem}}", "").replaceAll(
        "{{local_status}}",
        "https://rookery.example/users/alice/statuses/1",
      );
    const fixture = JSON.parse(text) as { objects?: Record<string, unknown>[] };
    for (const object of fixture.objects ?? []) {
      const actor = [object.attributedTo].flat()[0] ?? `${PEER}/actor`;
      creates.push({
        family: entry.name,
        create: {
          "@context": object["@context"] ?? AS,
          id: `${object.id}#create`,
          type: "Create",
          actor: typeof actor === "string" ? actor : (actor as { id: string }).id,
          object,
        },
      });
    }
  }
  return creates;
}

/**
 * What Fedify read of the Create and its object, in expanded form (never its
 * cached input); or the error it refused the document with.
 */
async function parsed(json: Record<string, unknown>, loader: DocumentLoader) {
  try {
    return await read(json, loader);
  } catch (error) {
    return { error: String(error) };
  }
}

async function read(json: Record<string, unknown>, loader: DocumentLoader) {
  const activity = await Activity.fromJsonLd(json, {
    contextLoader: loader,
    documentLoader: noFetch,
  });
  const object = await activity.getObject({ documentLoader: noFetch, suppressError: true });
  const options = { format: "expand" as const, contextLoader: loader };
  return {
    type: activity.constructor.name,
    activity: await activity.toJsonLd(options),
    object: await object?.toJsonLd(options),
  };
}

test("context cache: the corpus parses the same through cached contexts", async () => {
  const bundled = await contextLoader(AS) as { tag?: string };
  assert.equal(bundled.tag, "static", "a bundled context is cached by jsonld.js");
  const unknown = await contextLoader(`${PEER}/ns`) as { tag?: string };
  assert.equal(unknown.tag, undefined, "a sender's own context URL is not");
  const creates = corpusCreates();
  assert.ok(creates.length >= 20, `the corpus has objects (${creates.length})`);
  const families = new Set(creates.map((c) => c.family));
  const dialects = [
    "mastodon",
    "misskey",
    "pleroma",
    "gotosocial",
    "snac",
    "wordpress",
    "peertube",
  ];
  for (const family of dialects) {
    assert.ok(families.has(family), `${family} is in the corpus`);
  }
  // All afresh first: once jsonld.js holds a static context, it asks no loader for it again.
  const afresh = [];
  for (const { create } of creates) afresh.push(await parsed(structuredClone(create), untagged));
  let readable = 0;
  for (const [i, { family, create }] of creates.entries()) {
    // Twice: the first parse may fill the cache, the second reads from it.
    for (let pass = 0; pass < 2; pass++) {
      const cached = await parsed(structuredClone(create), contextLoader);
      assert.deepEqual(cached, afresh[i], `${family} ${(create.object as { id: string }).id}`);
    }
    if (!("error" in afresh[i])) readable++;
  }
  assert.ok(
    readable >= creates.length - 3,
    `most of the corpus parses (${readable} of ${creates.length})`,
  );
});
