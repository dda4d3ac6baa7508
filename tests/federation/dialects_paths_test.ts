/**
 * The dialect reader (federation/dialects/) on every inbound path, with a
 * plain-context peer (only the ActivityStreams context, so Fedify alone would
 * drop every Mastodon term): search resolve of an actor and of a post, a
 * Create whose object is given by reference (fetched), an Update of the actor
 * and an edit (Update of the Note). And hostile values: wrong types,
 * oversized lists and strings are ignored or bounded, never a 500 or junk.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { startFakePeer } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { callJson, ok } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

test("plain-context documents are read on every inbound path; hostile values are bounded", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  try {
    const viewer = await createUser(rookery, "viewer");
    const send = (request: Request) => rookery.request(request.url, request);
    const actorDoc = (extra: Record<string, unknown>) => {
      const id = peer.actor("plain");
      return {
        "@context": [AS, "https://w3id.org/security/v1"],
        id,
        type: "Person",
        preferredUsername: "plain",
        inbox: `${id}/inbox`,
        followers: `${id}/followers`,
        publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: peer.publicKeyPem },
        ...extra,
      };
    };
    const actor = peer.actor("plain");
    peer.serve(
      "/users/plain",
      actorDoc({
        manuallyApprovesFollowers: true,
        discoverable: true,
        attachment: [{ type: "PropertyValue", name: "Site", value: "<b>site</b>" }],
      }),
    );
    peer.route("/users/plain/inbox", () => new Response(null, { status: 202 }));
    const note = (name: string, extra: Record<string, unknown> = {}) => ({
      "@context": AS,
      id: `${peer.origin}/notes/${name}`,
      type: "Note",
      attributedTo: actor,
      to: [PUBLIC],
      content: `<p>${name}</p>`,
      published: "2025-06-01T10:00:00Z",
      ...extra,
    });
    const deliver = async (activity: Record<string, unknown>) => {
      const res = await peer.deliver(`${rookery.origin}/inbox`, activity, {
        keyId: `${actor}#main-key`,
        send,
      });
      await res.body?.cancel();
      return res.status;
    };
    const statusOf = async (name: string) => {
      const row = await eventually(
        `${name} stored`,
        () => storedStatus(rookery, `${peer.origin}/notes/${name}`),
      );
      return await ok(rookery, viewer, "GET", `/api/v1/statuses/${row.id}`);
    };
    const search = (q: string) =>
      ok(rookery, viewer, "GET", `/api/v2/search?resolve=true&q=${encodeURIComponent(q)}`);

    await t.step("search resolve: an actor and a post, read from the fetched JSON", async () => {
      const accounts = (await search(actor)).accounts;
      assert.equal(accounts.length, 1);
      assert.equal(accounts[0].locked, true);
      assert.equal(accounts[0].discoverable, true);
      assert.deepEqual(accounts[0].fields.map((f: { name: string }) => f.name), ["Site"]);
      peer.serve(
        "/notes/resolved",
        note("resolved", {
          contentMap: { it: "<p>ciao</p>" },
          sensitive: true,
          summary: "cw",
          tag: [{ type: "Hashtag", name: "#Pasta", href: `${peer.origin}/tags/pasta` }],
        }),
      );
      const statuses = (await search(`${peer.origin}/notes/resolved`)).statuses;
      assert.equal(statuses.length, 1);
      assert.equal(statuses[0].language, "it");
      assert.equal(statuses[0].sensitive, true);
      assert.deepEqual(statuses[0].tags.map((tag: { name: string }) => tag.name), ["pasta"]);
    });

    await t.step("a Create whose object is a bare IRI: the fetched JSON is read", async () => {
      peer.serve(
        "/notes/byref",
        note("byref", {
          tag: { type: "Hashtag", name: "#Reference" },
          attachment: {
            type: "Document",
            mediaType: "image/png",
            url: `${peer.origin}/m/1.png`,
            blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
            focalPoint: [0.1, 0.9],
          },
        }),
      );
      const status = await deliver({
        "@context": AS,
        id: `${peer.origin}/notes/byref#create`,
        type: "Create",
        actor,
        to: [PUBLIC],
        object: `${peer.origin}/notes/byref`,
      });
      assert.equal(status, 202);
      const s = await statusOf("byref");
      assert.deepEqual(s.tags.map((tag: { name: string }) => tag.name), ["reference"]);
      assert.equal(s.media_attachments[0].blurhash, "LEHV6nWB2yk8pyo0adR*.7kCMdnj");
      assert.deepEqual(s.media_attachments[0].meta.focus, { x: 0.1, y: 0.9 });
    });

    await t.step("Update of the actor: locked, fields and discoverable follow", async () => {
      const updated = actorDoc({
        manuallyApprovesFollowers: false,
        discoverable: false,
        attachment: [
          { type: "PropertyValue", name: "One", value: "1" },
          { type: "http://schema.org#PropertyValue", name: "Two", "http://schema.org#value": "2" },
        ],
      });
      assert.equal(
        await deliver({
          "@context": AS,
          id: `${actor}#update-1`,
          type: "Update",
          actor,
          to: [PUBLIC],
          object: updated,
        }),
        202,
      );
      await eventually("the profile updated", async () => {
        const a = await ok(
          rookery,
          viewer,
          "GET",
          `/api/v1/accounts/lookup?acct=plain@${new URL(peer.origin).host}`,
        );
        return a.locked === false && a.fields.length === 2 && a.discoverable === false || null;
      });
    });

    await t.step("an edit (Update of the Note) keeps its hashtags, language and CW", async () => {
      const first = note("edited", { content: "<p>v1</p>" });
      await deliver({ "@context": AS, id: `${first.id}#c`, type: "Create", actor, object: first });
      await statusOf("edited");
      const second = note("edited", {
        content: "<p>v2 #Later</p>",
        contentMap: { pt: "<p>v2 #Later</p>" },
        summary: "now with a CW",
        sensitive: true,
        updated: "2025-06-01T11:00:00Z",
        tag: [{ type: "Hashtag", name: "#Later" }],
      });
      await deliver({ "@context": AS, id: `${first.id}#u`, type: "Update", actor, object: second });
      const s = await eventually("the edit", async () => {
        const got = await statusOf("edited");
        return got.edited_at ? got : null;
      });
      assert.deepEqual(s.tags.map((tag: { name: string }) => tag.name), ["later"]);
      assert.equal(s.language, "pt");
      assert.equal(s.spoiler_text, "now with a CW");
      assert.equal(s.sensitive, true);
    });

    await t.step(
      "a delivery signed with a key that is gone (404) is a 401, not a 500",
      async () => {
        const res = await peer.deliver(`${rookery.origin}/inbox`, {
          "@context": AS,
          id: `${actor}#gone`,
          type: "Like",
          actor,
          object: `${peer.origin}/notes/byref`,
        }, { keyId: `${peer.origin}/keys/gone`, send });
        await res.body?.cancel();
        assert.equal(res.status, 401);
      },
    );

    await t.step(
      "hostile values: wrong types and oversized lists are ignored or bounded",
      async () => {
        const hostile = note("hostile", {
          sensitive: "yes",
          contentMap: { "not a language": "<p>x</p>" },
          tag: [
            ...Array.from({ length: 900 }, (_, i) => ({ type: "Hashtag", name: `#t${i}` })),
            { type: "Hashtag", name: 42 },
            { type: "Hashtag", name: "#no spaces allowed" },
            { type: "Emoji", name: ":bad:", icon: { url: "javascript:alert(1)" } },
          ],
          attachment: [{
            type: "Document",
            mediaType: "image/png",
            url: `${peer.origin}/m/2.png`,
            blurhash: "x".repeat(10_000),
            focalPoint: [5, "y"],
          }],
          quoteUrl: "javascript:alert(1)",
          _misskey_quote: { nested: true },
          votersCount: -3,
        });
        // What JSON-LD itself cannot read (a language map of numbers) is accepted and
        // dropped by the queued handler, as Mastodon does (inbox/fast_path.ts), never a 500.
        const unreadable = { ...hostile, id: `${hostile.id}-x`, contentMap: { fr: 5 } };
        assert.equal(
          await deliver({
            "@context": AS,
            id: `${hostile.id}#x`,
            type: "Create",
            actor,
            object: unreadable,
          }),
          202,
        );
        assert.equal(
          await deliver({
            "@context": AS,
            id: `${hostile.id}#c`,
            type: "Create",
            actor,
            object: hostile,
          }),
          202,
        );
        const s = await statusOf("hostile");
        // The same actor's activities are handled in order: the unreadable one was, and dropped.
        assert.equal(await storedStatus(rookery, unreadable.id as string), undefined);
        assert.equal(s.sensitive, false);
        assert.equal(s.language, null);
        assert.equal(s.tags.length, 50, "tags are bounded");
        assert.ok(s.tags.every((tag: { name: string }) => /^t\d+$/.test(tag.name)));
        assert.deepEqual(s.emojis, []);
        assert.equal(s.media_attachments[0].blurhash, null);
        assert.equal(s.media_attachments[0].meta?.focus, undefined);
        assert.equal(s.quote, null);
        // An actor whose terms have the wrong types: defaults, not junk.
        const res = await deliver({
          "@context": AS,
          id: `${actor}#update-2`,
          type: "Update",
          actor,
          object: actorDoc({
            manuallyApprovesFollowers: "true",
            attachment: Array.from({ length: 40 }, (_, i) => ({
              type: "PropertyValue",
              name: `f${i}`,
              value: "v".repeat(20_000),
            })),
            attributionDomains: ["ok.example", 7, "not a domain!"],
          }),
        });
        assert.equal(res, 202);
        const a = await eventually("the hostile profile", async () => {
          const got = await callJson(
            rookery,
            viewer,
            "GET",
            `/api/v1/accounts/lookup?acct=plain@${new URL(peer.origin).host}`,
          );
          return got.body.fields?.length === 16 ? got.body : null;
        });
        assert.equal(a.locked, false);
        assert.ok(a.fields.every((f: { value: string }) => f.value.length <= 2_047 * 4));
      },
    );
  } finally {
    await peer.close();
    await rookery.close();
  }
});
