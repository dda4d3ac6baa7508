/**
 * Issue 30, item 11: what peers get from us is in Mastodon's shape. A
 * hand-written peer (tests/fixtures/fake_peer.ts), with five followers of
 * alice on five inboxes (so a post is sent to more than Fedify's fan-out
 * threshold), records every body it is sent; each is checked, with each
 * document we serve, against the shape Mastodon's serializers write: lists
 * (`to`, `cc`, `tag`, `attachment`, `alsoKnownAs`, `items`, `orderedItems`,
 * `oneOf`/`anyOf`, the quote policy's approvals, a Flag's `object`) are
 * arrays whatever their length, and the public collection is written in
 * full, never `as:Public`. Each document has one tag, attachment, alias,
 * field or recipient, where JSON-LD compaction would write a single value.
 * The object integrity proof and the LD signature still verify (they are
 * computed on the shaped document), and our inbox reads both forms.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { unzipSync } from "fflate";
import { verifyJsonLd, verifyObject } from "@fedify/fedify";
import { Create, type DocumentLoader } from "@fedify/vocab";
import { getDocumentLoader } from "@fedify/vocab-runtime";
import { accounts } from "../../db/schema/mod.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { mediaRow } from "../fixtures/media.ts";
import { eventually } from "../fixtures/wait.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { addAlias, moveLocalAccount } from "../../actors/accounts/moves.ts";
import { archiveFile, findOwnArchive, requestArchive } from "../../actors/import_export/archive.ts";
import { AP_ACCEPT } from "./helpers.ts";

type Json = Record<string, any>;

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
/** What Mastodon always writes as a list (written here apart from our own list on purpose). */
const LISTS = [
  "to",
  "cc",
  "bto",
  "bcc",
  "tag",
  "attachment",
  "alsoKnownAs",
  "items",
  "orderedItems",
  "oneOf",
  "anyOf",
  "automaticApproval",
  "manualApproval",
];
const AUDIENCES = ["to", "cc", "bto", "bcc", "audience", "automaticApproval", "manualApproval"];

/** Where `doc` departs from Mastodon's shape (paths of single values and compact Public IRIs). */
function shapeIssues(doc: unknown, path = "$"): string[] {
  if (Array.isArray(doc)) return doc.flatMap((item, i) => shapeIssues(item, `${path}[${i}]`));
  if (!doc || typeof doc !== "object") return [];
  const issues: string[] = [];
  for (const [key, value] of Object.entries(doc as Json)) {
    if (key === "@context" || key === "proof" || key === "signature") continue;
    const listed = LISTS.includes(key) || (key === "object" && (doc as Json).type === "Flag");
    if (listed && !Array.isArray(value)) issues.push(`${path}.${key} is not an array`);
    if (
      AUDIENCES.includes(key) && [value].flat().some((v) => v === "as:Public" || v === "Public")
    ) {
      issues.push(`${path}.${key} has a compact Public`);
    }
    issues.push(...shapeIssues(value, `${path}.${key}`));
  }
  return issues;
}

function assertShape(doc: unknown, what: string) {
  assert.deepEqual(shapeIssues(doc), [], `${what}: ${JSON.stringify(doc)}`);
}

/** Reads documents of the instance through its handler, everything else as Fedify does. */
function loaderFor(rookery: TestInstance): DocumentLoader {
  const fallback = getDocumentLoader({ allowPrivateAddress: true });
  return async (url) => {
    if (!url.startsWith(rookery.origin)) return await fallback(url);
    const res = await rookery.request(url, { headers: { Accept: AP_ACCEPT } });
    return { contextUrl: null, documentUrl: url, document: await res.json() };
  };
}

test("what we serve and send: lists as arrays, the public collection in full", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  const send = (request: Request) => rookery.request(request.url, request);
  const received = new Map<string, Json[]>();
  const publish = (name: string, extra: Json = {}) => {
    const id = peer.publishActor(name, extra);
    peer.route(`/users/${name}/inbox`, async (request) => {
      received.set(name, [...received.get(name) ?? [], await request.json()]);
      return new Response(null, { status: 202 });
    });
    return id;
  };
  const followers = ["watcher", "w2", "w3", "w4", "w5"].map((name) => publish(name));
  const [watcher] = followers;
  const alice = await createUser(rookery, "alice");
  const bob = await createUser(rookery, "bob");
  const aliceUri = `${rookery.origin}/users/alice`;
  const deliver = async (activity: Json, actor = watcher) => {
    const res = await peer.deliver(`${rookery.origin}/inbox`, { "@context": AS, ...activity }, {
      keyId: `${actor}#main-key`,
      send,
    });
    assert.equal(await statusOf(res), 202);
  };
  /** The body of `type` (about `objectId`) the peer's `name` received, once it has. */
  const delivered = (name: string, type: string, objectId?: string) =>
    eventually<Json>(`${type} ${objectId ?? ""} at ${name}`, () => {
      const bodies = received.get(name) ?? [];
      return Promise.resolve(bodies.findLast((b) =>
        b.type === type &&
        (!objectId || [b.object].flat().some((o) => (o?.id ?? o) === objectId))
      ));
    });
  const served = async (url: string) => {
    const res = await rookery.request(url, { headers: { Accept: AP_ACCEPT } });
    assert.equal(res.status, 200, url);
    return await res.json() as Json;
  };
  /** The id of a peer's actor on the instance, resolved by search as a user would. */
  const accountOf = async (uri: string) => {
    const q = encodeURIComponent(uri);
    const found = await ok(rookery, alice, "GET", `/api/v2/search?q=${q}&resolve=true`);
    assert.equal(found.accounts.length, 1, uri);
    return found.accounts[0].id as string;
  };
  try {
    await t.step("five followers: each Accept", async () => {
      for (const [i, follower] of followers.entries()) {
        await deliver(
          { id: `${follower}#follows/${i}`, type: "Follow", actor: follower, object: aliceUri },
          follower,
        );
      }
      for (const name of ["watcher", "w2", "w3", "w4", "w5"]) {
        assertShape(await delivered(name, "Accept"), `Accept to ${name}`);
      }
    });

    await t.step("one alias and one field: the actor served and its Update", async () => {
      const old = await accountOf(publish("oldhome"));
      await addAlias(rookery.rookery.ctx, alice.id, {
        id: old,
        uri: `${peer.origin}/users/oldhome`,
      });
      await ok(rookery, alice, "PATCH", "/api/v1/accounts/update_credentials", {
        fields_attributes: { "0": { name: "Home", value: "the web" } },
      });
      const update = await delivered("watcher", "Update", aliceUri);
      assertShape(update, "Update(Person)");
      const actor = await served(aliceUri);
      assertShape(actor, "actor");
      for (const person of [update.object, actor]) {
        assert.deepEqual(person.alsoKnownAs, [`${peer.origin}/users/oldhome`]);
        assert.deepEqual(person.attachment.map((f: Json) => f.name), ["Home"]);
      }
      assert.deepEqual(update.to, [PUBLIC]);
    });

    let post: Json = {};
    await t.step(
      "one hashtag, one picture: the Create to five inboxes, proven and signed",
      async () => {
        const mediaId = await mediaRow(rookery, alice);
        post = await postStatus(rookery, alice, "Hello #solo", { media_ids: [mediaId] });
        const loader = loaderFor(rookery);
        const options = { documentLoader: loader, contextLoader: loader };
        for (const name of ["watcher", "w2", "w3", "w4", "w5"]) {
          const create = await delivered(name, "Create", post.uri);
          assertShape(create, `Create to ${name}`);
          const note = create.object;
          assert.deepEqual(note.to, [PUBLIC]);
          assert.deepEqual(note.cc, [`${aliceUri}/followers`]);
          assert.deepEqual(note.tag.map((tag: Json) => tag.name), ["#solo"]);
          assert.equal(note.attachment.length, 1);
          // Mastodon's terms survive past the fan-out threshold, under the proof.
          assert.equal(note.attachment[0].blurhash, "LEHV6nWB2yk8pyo0adR*.7kCMdnj");
          assert.ok(await verifyJsonLd(create, options), `the LD signature verifies (${name})`);
          const { signature: _, ...unsigned } = create;
          assert.ok(await verifyObject(Create, unsigned, options), `the proof verifies (${name})`);
        }
      },
    );

    await t.step("the Note served: its tag, attachment and quote policy", async () => {
      const note = await served(post.uri);
      assertShape(note, "Note");
      assert.deepEqual(note.to, [PUBLIC]);
      assert.equal(note.tag.length, 1);
      assert.equal(note.attachment.length, 1);
      assert.deepEqual(note.interactionPolicy.canQuote.automaticApproval, [PUBLIC]);
      // The same document at its web page, negotiated.
      assertShape(await served(`/@alice/${post.id}`), "Note at its page");
    });

    await t.step(
      "an edit, a pin and its removal, a reply: Update, Add, Remove, collections",
      async () => {
        await ok(rookery, alice, "PUT", `/api/v1/statuses/${post.id}`, { status: "Hi #solo" });
        assertShape(await delivered("watcher", "Update", post.uri), "Update(Note)");
        await ok(rookery, alice, "POST", `/api/v1/statuses/${post.id}/pin`);
        assertShape(await delivered("watcher", "Add", post.uri), "Add");
        const featured = await served(`${aliceUri}/collections/featured`);
        assertShape(featured, "featured");
        assert.deepEqual(featured.orderedItems.map((n: Json) => n.id), [post.uri]);
        await ok(rookery, alice, "POST", `/api/v1/statuses/${post.id}/unpin`);
        assertShape(await delivered("watcher", "Remove", post.uri), "Remove");
        await postStatus(rookery, bob, "@alice indeed", { in_reply_to_id: post.id });
        const replies = await served(`${post.uri}/replies`);
        assertShape(replies, "replies");
        const page = replies.first?.items ? replies.first : await served(replies.first);
        assert.equal(page.items.length, 1);
        const outbox = await served(`${aliceUri}/outbox`);
        const outboxPage = await served(outbox.first);
        assertShape(outboxPage, "outbox page");
        assert.equal(outboxPage.orderedItems.length, 1);
        for (const name of ["followers", "following"]) {
          const collection = await served(`${aliceUri}/${name}`);
          assertShape(collection, name);
          if (typeof collection.first === "string") {
            assertShape(await served(collection.first), `${name} page`);
          }
        }
      },
    );

    await t.step("a quote of alice's post: the stamp served", async () => {
      const quote = await postStatus(rookery, bob, "so true", { quoted_status_id: post.id });
      const note = await eventually("the quote approved", async () => {
        const doc = await served(quote.uri);
        return doc.quoteAuthorization && doc;
      });
      assertShape(note, "quote Note");
      assertShape(await served(note.quoteAuthorization), "QuoteAuthorization");
    });

    let theirs = "";
    await t.step("a favourite, a boost, a quote and their undoing", async () => {
      theirs = `${watcher}/statuses/1`;
      const note = {
        id: theirs,
        type: "Note",
        attributedTo: watcher,
        content: "<p>quote me</p>",
        to: [PUBLIC],
        interactionPolicy: { canQuote: { automaticApproval: [PUBLIC] } },
      };
      const context = [AS, "https://gotosocial.org/ns"];
      peer.serve("/users/watcher/statuses/1", { "@context": context, ...note });
      await deliver({
        "@context": context,
        id: `${theirs}/activity`,
        type: "Create",
        actor: watcher,
        object: note,
      });
      const row = await eventually("their Note stored", () => storedStatus(rookery, theirs));
      await ok(rookery, alice, "POST", `/api/v1/statuses/${row.id}/favourite`);
      assertShape(await delivered("watcher", "Like", theirs), "Like");
      await ok(rookery, alice, "POST", `/api/v1/statuses/${row.id}/reblog`);
      const announce = await delivered("watcher", "Announce", theirs);
      assertShape(announce, "Announce");
      assert.deepEqual(announce.to, [PUBLIC]);
      await ok(rookery, alice, "POST", `/api/v1/statuses/${row.id}/unreblog`);
      await ok(rookery, alice, "POST", `/api/v1/statuses/${row.id}/unfavourite`);
      const undos = await eventually("both Undos", () => {
        const found = (received.get("watcher") ?? []).filter((b) => b.type === "Undo");
        return Promise.resolve(found.length >= 2 && found);
      });
      for (const undo of undos) assertShape(undo, `Undo(${undo.object?.type})`);
      await postStatus(rookery, alice, "this", { quoted_status_id: row.id });
      assertShape(await delivered("watcher", "QuoteRequest", theirs), "QuoteRequest");
    });

    await t.step("a direct message, a follow, a report, a block, a deletion", async () => {
      const dm = await postStatus(
        rookery,
        alice,
        "@watcher@" + new URL(peer.origin).host + " psst",
        {
          visibility: "direct",
        },
      );
      const create = await delivered("watcher", "Create", dm.uri);
      assertShape(create, "Create(direct)");
      assert.deepEqual(create.object.to, [watcher]);
      const watcherId = await accountOf(watcher);
      await ok(rookery, alice, "POST", `/api/v1/accounts/${watcherId}/follow`);
      assertShape(await delivered("watcher", "Follow", watcher), "Follow");
      await ok(rookery, alice, "POST", "/api/v1/reports", { account_id: watcherId, forward: true });
      const flag = await delivered("watcher", "Flag", watcher);
      assertShape(flag, "Flag");
      assert.deepEqual(flag.object, [watcher]);
      const w5 = await accountOf(followers[4]);
      await ok(rookery, alice, "POST", `/api/v1/accounts/${w5}/block`);
      assertShape(await delivered("w5", "Block", followers[4]), "Block");
      await ok(rookery, alice, "DELETE", `/api/v1/statuses/${dm.id}`);
      const deletion = await delivered("watcher", "Delete", dm.uri);
      assertShape(deletion, "Delete");
    });

    await t.step("the archive's outbox.json and actor.json", async () => {
      const db = rookery.rookery.ctx.database.db;
      // The request records the build job; the instance's worker runs it.
      const { id } = await requestArchive(db, alice.userId);
      const row = await eventually("the archive built", async () => {
        const archive = await findOwnArchive(db, alice.userId, id);
        return archive.state === "done" ? archive : undefined;
      });
      const files = unzipSync(await Deno.readFile(archiveFile(rookery.dataDir, row.fileKey!)));
      const read = (name: string) => JSON.parse(new TextDecoder().decode(files[name]));
      assertShape(read("outbox.json"), "outbox.json");
      assertShape(read("actor.json"), "actor.json");
    });

    await t.step("a move: its Update and the Move", async () => {
      const target = await accountOf(publish("newhome", { alsoKnownAs: aliceUri }));
      await moveLocalAccount(rookery.rookery.ctx, alice.id, target);
      const move = await delivered("watcher", "Move", aliceUri);
      assertShape(move, "Move");
    });

    await t.step("our inbox reads a single value and a compact Public alike", async () => {
      const single = publish("single", {
        alsoKnownAs: `${peer.origin}/users/oldhome`,
        attachment: { type: "PropertyValue", name: "Site", value: "<p>mine</p>" },
      });
      const singleId = await accountOf(single);
      const account = await ok(rookery, alice, "GET", `/api/v1/accounts/${singleId}`);
      assert.deepEqual(account.fields.map((f: Json) => f.name), ["Site"]);
      const [stored] = await rookery.rookery.ctx.database.db.select().from(accounts)
        .where(eq(accounts.id, singleId));
      assert.deepEqual(stored.alsoKnownAs, [`${peer.origin}/users/oldhome`]);
      for (const [n, shape] of [["compact", false], ["arrays", true]] as const) {
        const id = `${watcher}/statuses/${n}`;
        const tag = { type: "Hashtag", name: `#${n}`, href: `${peer.origin}/tags/${n}` };
        await deliver({
          id: `${id}/activity`,
          type: "Create",
          actor: watcher,
          object: {
            id,
            type: "Note",
            attributedTo: watcher,
            content: `<p>#${n}</p>`,
            to: shape ? [PUBLIC] : "as:Public",
            cc: shape ? [`${watcher}/followers`] : `${watcher}/followers`,
            tag: shape ? [tag] : tag,
          },
        });
        const row = await eventually(`the ${n} Note stored`, () => storedStatus(rookery, id));
        const status = await ok(rookery, alice, "GET", `/api/v1/statuses/${row.id}`);
        assert.equal(status.visibility, "public", n);
        assert.deepEqual(status.tags.map((t: Json) => t.name), [n]);
      }
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
