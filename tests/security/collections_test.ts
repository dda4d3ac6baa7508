/**
 * Remote collections cannot make us crawl: a featured collection that
 * claims a million items, pages whose `next` loops back, or a page too big
 * to read cost a bounded number of fetches. Only the collection, its first
 * page and at most 20 of its items (federation/remote/featured_sync.ts) are read,
 * and a document over 1 MiB or an array over 1,000 entries is refused
 * unread (federation/fetch/document_loader.ts, json_limits.ts).
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { startFakePeer } from "../fixtures/fake_peer.ts";
import { jobsDrained } from "../cards/helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";
/** Mastodon's context for `featured` (read from the raw JSON only with issue 19). */
const ACTOR_CONTEXT = [AS, "https://w3id.org/security/v1", {
  toot: "http://joinmastodon.org/ns#",
  featured: { "@id": "toot:featured", "@type": "@id" },
}];

test("remote collections: a million items or a looping next are bounded", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  try {
    const alice = await createUser(rookery, "alice");
    const resolve = async (uri: string) => {
      const res = await callJson(
        rookery,
        alice,
        "GET",
        `/api/v1/accounts/search?resolve=true&q=${encodeURIComponent(uri)}`,
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.length, 1, `${uri} resolved`);
    };
    /** Requests the peer got for paths starting with `prefix`. */
    const hitsUnder = (prefix: string, paths: string[]) =>
      paths.filter((p) => p.startsWith(prefix)).reduce((n, p) => n + peer.hits(p), 0);

    await t.step("a million items and a next that loops: one page, 20 items", async () => {
      const actor = peer.actor("hoarder");
      const featured = `${actor}/featured`;
      const page = `${actor}/featured/page`;
      const notePaths = Array.from({ length: 1_000 }, (_, i) => `/users/hoarder/notes/${i}`);
      peer.publishActor("hoarder", { "@context": ACTOR_CONTEXT, featured });
      peer.serve("/users/hoarder/featured", {
        "@context": AS,
        id: featured,
        type: "OrderedCollection",
        totalItems: 1_000_000,
        first: page,
        last: `${page}?last`,
      });
      peer.serve("/users/hoarder/featured/page", {
        "@context": AS,
        id: page,
        type: "OrderedCollectionPage",
        partOf: featured,
        next: page,
        prev: page,
        orderedItems: notePaths.map((p) => `${peer.origin}${p}`),
      });
      await resolve(actor);
      await eventually(
        "the page read",
        () => Promise.resolve(peer.hits("/users/hoarder/featured/page") > 0),
      );
      await jobsDrained(rookery);
      assert.equal(peer.hits("/users/hoarder/featured"), 1);
      assert.equal(peer.hits("/users/hoarder/featured/page"), 1, "next is never followed");
      const items = hitsUnder("/users/hoarder/notes/", notePaths);
      assert.ok(items <= 20, `${items} items fetched`);
      assert.ok(items > 0, "the first items were read");
    });

    await t.step("a page of 1,001 items or over 1 MiB is refused unread", async () => {
      for (
        const [name, count, padding] of [["wide", 1_001, 0], ["heavy", 10, 1_100_000]] as const
      ) {
        const actor = peer.actor(name);
        const featured = `${actor}/featured`;
        const notePaths = Array.from({ length: count }, (_, i) => `/users/${name}/notes/${i}`);
        peer.publishActor(name, { "@context": ACTOR_CONTEXT, featured });
        peer.serve(`/users/${name}/featured`, {
          "@context": AS,
          id: featured,
          type: "OrderedCollection",
          totalItems: count,
          orderedItems: notePaths.map((p) => `${peer.origin}${p}`),
          summary: "x".repeat(padding),
        });
        await resolve(actor);
        await eventually(
          "the collection asked for",
          () => Promise.resolve(peer.hits(`/users/${name}/featured`) > 0),
        );
        await jobsDrained(rookery);
        assert.equal(hitsUnder(`/users/${name}/notes/`, notePaths), 0, name);
      }
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
  }
});
