/**
 * What we write for peers (issue 19, item 2), seen from a hand-written peer
 * (tests/fixtures/fake_peer.ts) that follows a local account:
 *
 * - every request the instance makes to it carries `User-Agent:
 *   Rookery/<version> (+<origin>/)`: the actor fetch, the Accept and the
 *   Create delivered to its inbox, WebFinger, a link preview fetch;
 * - the delivered Note and the Note fetched from us carry `contentMap` and
 *   `summaryMap` keyed by the status language, attachments with `blurhash`,
 *   `focalPoint`, `width` and `height`, and an `@context` defining
 *   `blurhash` and `focalPoint` as Mastodon's does;
 * - a status of unknown language has no maps (nothing is guessed).
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { mediaAttachments } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { mediaRow } from "../fixtures/media.ts";
import { eventually } from "../fixtures/wait.ts";
import { resolveRemoteAccount } from "../../federation/remote/accounts.ts";
import { ROOKERY_VERSION } from "../../version.ts";
import { AP_ACCEPT } from "./helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";

type Json = Record<string, any>;

/** The compacted Note's attachments as an array. */
function attachmentsOf(note: Json): Json[] {
  return Array.isArray(note.attachment)
    ? note.attachment
    : note.attachment
    ? [note.attachment]
    : [];
}

/** Whether a context (string, object or array of them) defines `term` as Mastodon's IRI. */
function definesTerm(context: unknown, term: string, iri: string): boolean {
  const entries = Array.isArray(context) ? context : [context];
  return entries.some((e) => {
    if (!e || typeof e !== "object") return false;
    const value = (e as Json)[term];
    const id = typeof value === "string" ? value : value?.["@id"];
    const toot = (e as Json).toot;
    return id === iri || (typeof id === "string" && id.replace(/^toot:/, toot ?? "") === iri);
  });
}

test("what peers receive: User-Agent, contentMap/summaryMap, blurhash and focalPoint", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  const send = (request: Request) => rookery.request(request.url, request);
  const userAgents = new Map<string, string[]>();
  const inboxBodies: Json[] = [];
  const record = (path: string, request: Request) => {
    userAgents.set(path, [...userAgents.get(path) ?? [], request.headers.get("user-agent") ?? ""]);
  };
  const watcher = peer.actor("watcher");
  const actorDocument = {
    "@context": [AS, "https://w3id.org/security/v1"],
    id: watcher,
    type: "Person",
    preferredUsername: "watcher",
    inbox: `${watcher}/inbox`,
    url: watcher,
    publicKey: { id: `${watcher}#main-key`, owner: watcher, publicKeyPem: peer.publicKeyPem },
  };
  peer.route("/users/watcher", (request) => {
    record("/users/watcher", request);
    return Response.json(actorDocument, {
      headers: { "Content-Type": "application/activity+json" },
    });
  });
  peer.route("/users/watcher/inbox", async (request) => {
    record("/users/watcher/inbox", request);
    inboxBodies.push(await request.json());
    return new Response(null, { status: 202 });
  });
  peer.route("/.well-known/webfinger", (request) => {
    record("/.well-known/webfinger", request);
    return Response.json({
      subject: `acct:watcher@${new URL(peer.origin).host}`,
      links: [{ rel: "self", type: "application/activity+json", href: watcher }],
    });
  });
  peer.route("/page", (request) => {
    record("/page", request);
    return new Response(
      `<html><head><title>A page</title><meta property="og:title" content="A page"></head></html>`,
      { headers: { "Content-Type": "text/html" } },
    );
  });
  const alice = await createUser(rookery, "alice");
  const expectedAgent = `Rookery/${ROOKERY_VERSION} (+${rookery.origin}/)`;
  const delivered = (type: string, objectId?: string) =>
    eventually<Json>(
      `${type} at the peer`,
      () =>
        Promise.resolve(inboxBodies.find((b) =>
          b.type === type && (!objectId || (b.object?.id ?? b.object) === objectId)
        )),
    );
  try {
    await t.step(
      "the peer follows alice: actor fetch and Accept carry our User-Agent",
      async () => {
        const follow = {
          "@context": AS,
          id: `${watcher}#follows/1`,
          type: "Follow",
          actor: watcher,
          object: `${rookery.origin}/users/alice`,
        };
        const res = await peer.deliver(`${rookery.origin}/users/alice/inbox`, follow, {
          keyId: `${watcher}#main-key`,
          send,
        });
        assert.equal(await statusOf(res), 202);
        await delivered("Accept");
        assert.deepEqual(new Set(userAgents.get("/users/watcher")), new Set([expectedAgent]));
        assert.deepEqual(new Set(userAgents.get("/users/watcher/inbox")), new Set([expectedAgent]));
      },
    );

    let statusUri = "";
    await t.step("a French post with a CW and a focused picture, as delivered", async () => {
      const mediaId = await mediaRow(rookery, alice);
      const db = rookery.rookery.ctx.database.db;
      await db.update(mediaAttachments).set({
        meta: { original: { width: 2, height: 1 }, focus: { x: 0.5, y: -0.25 } },
      }).where(eq(mediaAttachments.id, mediaId));
      const status = await postStatus(rookery, alice, "Bonjour tout le monde", {
        language: "fr",
        spoiler_text: "Salut",
        media_ids: [mediaId],
      });
      statusUri = status.uri;
      const create = await delivered("Create", statusUri);
      assert.deepEqual(new Set(userAgents.get("/users/watcher/inbox")), new Set([expectedAgent]));
      const note = create.object as Json;
      assert.deepEqual(note.contentMap, { fr: note.content });
      assert.match(note.content, /Bonjour tout le monde/);
      assert.deepEqual(note.summaryMap, { fr: "Salut" });
      const [attachment] = attachmentsOf(note);
      assert.equal(attachment.blurhash, "LEHV6nWB2yk8pyo0adR*.7kCMdnj");
      assert.deepEqual(attachment.focalPoint, [0.5, -0.25]);
      assert.equal(attachment.width, 2);
      assert.equal(attachment.height, 1);
      const toot = "http://joinmastodon.org/ns#";
      assert.ok(definesTerm(create["@context"], "blurhash", `${toot}blurhash`), "blurhash defined");
      assert.ok(definesTerm(create["@context"], "focalPoint", `${toot}focalPoint`));
    });

    await t.step("the Note fetched from us says the same", async () => {
      const res = await rookery.request(statusUri, { headers: { Accept: AP_ACCEPT } });
      assert.equal(res.status, 200);
      const note = await res.json();
      assert.deepEqual(note.contentMap, { fr: note.content });
      assert.deepEqual(note.summaryMap, { fr: "Salut" });
      const [attachment] = attachmentsOf(note);
      assert.equal(attachment.blurhash, "LEHV6nWB2yk8pyo0adR*.7kCMdnj");
      assert.deepEqual(attachment.focalPoint, [0.5, -0.25]);
      assert.equal(attachment.width, 2);
      assert.equal(attachment.height, 1);
      const toot = "http://joinmastodon.org/ns#";
      assert.ok(definesTerm(note["@context"], "blurhash", `${toot}blurhash`));
      assert.ok(definesTerm(note["@context"], "focalPoint", `${toot}focalPoint`));
    });

    await t.step("the outbox and the featured collection embed the same Note", async () => {
      await ok(rookery, alice, "POST", `/api/v1/statuses/${statusUri.split("/").pop()}/pin`);
      const get = async (path: string) =>
        await (await rookery.request(path, { headers: { Accept: AP_ACCEPT } })).json();
      const outbox = await get("/users/alice/outbox");
      const page = await get(outbox.first);
      const create = [page.orderedItems].flat().find((item: Json) => item.object?.id === statusUri);
      const featured = await get("/users/alice/collections/featured");
      const pinned = [featured.orderedItems].flat().find((item: Json) => item.id === statusUri);
      for (const note of [create?.object, pinned]) {
        assert.ok(note, "the Note is there");
        assert.deepEqual(note.contentMap, { fr: note.content });
        assert.deepEqual(note.summaryMap, { fr: "Salut" });
        const [attachment] = attachmentsOf(note);
        assert.equal(attachment.blurhash, "LEHV6nWB2yk8pyo0adR*.7kCMdnj");
        assert.deepEqual(attachment.focalPoint, [0.5, -0.25]);
      }
    });

    await t.step("the Update of a poll's results keeps the language maps", async () => {
      const poll = await postStatus(rookery, alice, "Welche Farbe?", {
        language: "de",
        poll: { options: ["Rot", "Blau"], expires_in: 3600 },
      });
      await delivered("Create", poll.uri);
      const vote = `${watcher}#votes/1`;
      const res = await peer.deliver(`${rookery.origin}/users/alice/inbox`, {
        "@context": AS,
        id: `${vote}/activity`,
        type: "Create",
        actor: watcher,
        to: `${rookery.origin}/users/alice`,
        object: {
          id: vote,
          type: "Note",
          name: "Blau",
          attributedTo: watcher,
          inReplyTo: poll.uri,
          to: `${rookery.origin}/users/alice`,
        },
      }, { keyId: `${watcher}#main-key`, send });
      assert.equal(await statusOf(res), 202);
      const update = await delivered("Update", poll.uri);
      assert.equal(update.object.type, "Question");
      assert.deepEqual(update.object.contentMap, { de: update.object.content });
    });

    await t.step("no language, no maps", async () => {
      const status = await postStatus(rookery, alice, "plain words", { language: null });
      const res = await rookery.request(status.uri, { headers: { Accept: AP_ACCEPT } });
      const note = await res.json();
      if (status.language == null) {
        assert.equal(note.contentMap, undefined);
      } else {
        // The account's default language applied: then it is the map's key.
        assert.deepEqual(Object.keys(note.contentMap), [status.language]);
      }
      assert.equal(note.summaryMap, undefined);
    });

    await t.step("WebFinger and link previews carry our User-Agent", async () => {
      // Storing the actor confirmed its handle already; a lookup by handle asks again.
      const before = userAgents.get("/.well-known/webfinger")?.length ?? 0;
      await resolveRemoteAccount(rookery.rookery.ctx, `watcher2@${new URL(peer.origin).host}`);
      const asked = userAgents.get("/.well-known/webfinger") ?? [];
      assert.ok(asked.length > before, "WebFinger asked");
      assert.deepEqual(new Set(asked), new Set([expectedAgent]));
      await postStatus(rookery, alice, `Read ${peer.origin}/page`);
      await eventually("the link preview fetch", () => Promise.resolve(userAgents.get("/page")));
      // Mastodon's link crawler adds "Bot"; the product token and URL come first.
      assert.ok(userAgents.get("/page")![0].startsWith(expectedAgent));
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
