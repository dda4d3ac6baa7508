/**
 * Complete remote threads (issue 21): two instances over https, A and B,
 * and a hand-written peer C. B holds a public thread whose replies never
 * reached A (A follows nobody there); C's server holds one reply that B
 * knows and A's domain block refuses.
 *
 * - B's Note carries its `replies` collection with the first page embedded
 *   (public and unlisted replies only); later pages follow `next`.
 * - On A, the context of the root answers at once with what A has, and a
 *   `Mastodon-Async-Refresh` header; the refresh it names runs to
 *   `finished` with the count of new statuses, and the next context shows
 *   the replies, a reply of a reply included.
 * - The private reply never reaches A; C's reply is never fetched by A
 *   (no request reaches C); a second context call within the cooldown
 *   starts no crawl; an unknown refresh id is a 404, no token a 401.
 * - A hand-written server's collection that lists a followers-only post and
 *   a post that is no reply, and whose next page names itself: only the
 *   public and the unlisted reply are stored, and the page is read once.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { replyCrawls } from "../../db/schema/mod.ts";
import { createDomainBlock } from "../../actors/moderation/instance_domain_blocks.ts";
import { FetchBudget } from "../../federation/fetch/budget.ts";
import { resolveRemoteStatus } from "../../federation/remote/statuses.ts";
import { instanceContext } from "../../federation/fetch/lookup.ts";
import { test } from "../harness.ts";
import { closeAll, startPair, storedStatus } from "../fixtures/federation.ts";
import { startFakePeer } from "../fixtures/fake_peer.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { AP_ACCEPT } from "./helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const HEADER = /^id="([^"]+)", retry=(\d+), result_count=(\d+)$/;

test("context of a remote status crawls its replies collection in the background", async (t) => {
  const { a, b } = await startPair({
    // Statuses in a test are seconds old: no wait for late deliveries.
    a: { env: { THREAD_CRAWL_MIN_AGE: "0" } },
  });
  const peer = await startFakePeer();
  const hostile = await startFakePeer();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    const carl = await createUser(b, "carl");
    const dave = await createUser(b, "dave");

    // B's thread: 8 listed replies to the root (more than the 5 a Note embeds),
    // one reply of a reply, and a private reply.
    const root = await postStatus(b, bob, "The root of a long thread");
    const reply = (who: typeof bob, text: string, to: string, visibility = "public") =>
      postStatus(b, who, { status: text, in_reply_to_id: to, visibility });
    const first = await reply(carl, "@bob first reply", root.id);
    const own = await reply(bob, "a reply of my own", root.id, "unlisted");
    const nested = await reply(dave, "@carl a reply to the first reply", first.id);
    const hidden = await reply(carl, "@bob only for followers", root.id, "private");
    const more: { id: string; uri: string }[] = [];
    for (let i = 0; i < 5; i++) more.push(await reply(dave, `@bob more ${i}`, root.id));
    // C's reply, which B fetched (C is a server A blocks).
    const carol = peer.publishActor("carol");
    const blockedUri = `${peer.origin}/notes/1`;
    peer.serve("/notes/1", {
      "@context": AS,
      id: blockedUri,
      type: "Note",
      attributedTo: carol,
      content: "<p>from a blocked server</p>",
      inReplyTo: root.uri,
      to: [`${AS}#Public`],
      published: new Date().toISOString(),
    });
    const bctx = b.rookery.ctx;
    assert.ok(await resolveRemoteStatus(instanceContext(bctx), blockedUri, FetchBudget.of(bctx)));
    const listed = [first, own, ...more].map((s) => s.uri).concat(blockedUri);

    await t.step("B's Note embeds the first page of its replies collection", async () => {
      const res = await b.request(root.uri, { headers: { Accept: AP_ACCEPT } });
      assert.equal(res.status, 200);
      const note = await res.json();
      assert.equal(note.replies.type, "Collection");
      assert.equal(note.replies.id, `${root.uri}/replies`);
      const page = note.replies.first;
      assert.equal(page.type, "CollectionPage");
      assert.equal(page.partOf, `${root.uri}/replies`);
      assert.deepEqual(page.items, listed.slice(0, 5), "oldest first, the private reply left out");
      assert.ok(page.next, "a next page: more than five replies");
      const next = await b.request(page.next, { headers: { Accept: AP_ACCEPT } });
      assert.equal(next.status, 200);
      const rest = await next.json();
      assert.deepEqual(rest.items, listed.slice(5));
      assert.ok(!JSON.stringify(rest).includes(hidden.uri));
      const whole = await (await b.request(`${root.uri}/replies`, {
        headers: { Accept: AP_ACCEPT },
      })).json();
      assert.equal(whole.totalItems, listed.length);
      // A reply without replies has an empty first page and no next.
      const leaf = await (await b.request(nested.uri, { headers: { Accept: AP_ACCEPT } })).json();
      assert.deepEqual(leaf.replies.first.items ?? [], []);
      assert.equal(leaf.replies.first.next, undefined);
      // The private reply's own collection is not for anonymous readers.
      const privateOne = await b.request(`${hidden.uri}/replies?cursor=first`, {
        headers: { Accept: AP_ACCEPT },
      });
      assert.equal(privateOne.status, 404);
      await privateOne.body?.cancel();
      const privateTop = await b.request(`${hidden.uri}/replies`, {
        headers: { Accept: AP_ACCEPT },
      });
      assert.equal(privateTop.status, 404);
      await privateTop.body?.cancel();
      // In authorized-fetch mode the collection wants a signature, as every collection.
      const config = b.rookery.ctx.config as { authorizedFetch: boolean };
      config.authorizedFetch = true;
      try {
        const unsigned = await b.request(`${root.uri}/replies?cursor=first`, {
          headers: { Accept: AP_ACCEPT },
        });
        assert.equal(unsigned.status, 401);
        await unsigned.body?.cancel();
      } finally {
        config.authorizedFetch = false;
      }
    });

    // A does not federate with C.
    const adb = a.rookery.ctx.database;
    await createDomainBlock(
      { db: adb.db, rules: a.rookery.ctx.core.domainRules },
      null,
      new URL(peer.origin).host,
      {
        severity: "suspend",
      },
    );
    const hitsBefore = peer.hits("/notes/1");

    const found = await ok(
      a,
      alice,
      "GET",
      `/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(root.uri)}`,
    );
    assert.equal(found.statuses.length, 1);
    const onA = found.statuses[0].id;
    let refreshId = "";

    await t.step("context answers at once, with the async refresh header", async () => {
      const res = await callJson(a, alice, "GET", `/api/v1/statuses/${onA}/context`);
      assert.equal(res.status, 200);
      assert.ok(res.body.descendants.length < listed.length, "the crawl has not run yet");
      const header = res.headers.get("mastodon-async-refresh");
      const match = header?.match(HEADER);
      assert.ok(match, `Mastodon-Async-Refresh: ${header}`);
      refreshId = match[1];
      assert.equal(match[2], "3");
    });

    await t.step("the refresh runs to finished with the count of new statuses", async () => {
      const done = await eventually("the crawl to finish", async () => {
        const res = await callJson(a, alice, "GET", `/api/v1_alpha/async_refreshes/${refreshId}`);
        assert.equal(res.status, 200);
        assert.equal(res.body.async_refresh.id, refreshId);
        assert.ok(["running", "finished"].includes(res.body.async_refresh.status));
        return res.body.async_refresh.status === "finished" ? res.body.async_refresh : null;
      }, 60_000);
      // Seven replies from B and the reply to the first one; not C's, not the private one.
      assert.equal(done.result_count, 8);
    });

    await t.step("the next context shows the replies B held", async () => {
      const res = await callJson(a, alice, "GET", `/api/v1/statuses/${onA}/context`);
      assert.equal(res.status, 200);
      const uris = res.body.descendants.map((s: { uri: string }) => s.uri).sort();
      const expected = [first, own, nested, ...more].map((s) => s.uri).sort();
      assert.deepEqual(uris, expected);
      const child = res.body.descendants.find((s: { uri: string }) => s.uri === nested.uri);
      const parent = res.body.descendants.find((s: { uri: string }) => s.uri === first.uri);
      assert.equal(child.in_reply_to_id, parent.id, "the reply of a reply is threaded");
      const ownOnA = res.body.descendants.find((s: { uri: string }) => s.uri === own.uri);
      assert.equal(ownOnA.visibility, "unlisted");
      // Crawled within the cooldown: no new crawl, no header.
      assert.equal(res.headers.get("mastodon-async-refresh"), null);
    });

    await t.step("private replies and blocked servers stay out", async () => {
      assert.equal(await storedStatus(a, hidden.uri), undefined);
      assert.equal(await storedStatus(a, blockedUri), undefined);
      assert.equal(peer.hits("/notes/1"), hitsBefore, "no request reached the blocked server");
    });

    await t.step("a second call within the cooldown crawls nothing", async () => {
      const [before] = await adb.db.select().from(replyCrawls)
        .where(eq(replyCrawls.statusId, onA));
      const res = await callJson(a, alice, "GET", `/api/v1/statuses/${onA}/context`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("mastodon-async-refresh"), null);
      const [after] = await adb.db.select().from(replyCrawls)
        .where(eq(replyCrawls.statusId, onA));
      assert.equal(after.crawledAt.getTime(), before.crawledAt.getTime());
      assert.equal(after.refreshId, refreshId);
      // The refresh is still reported, finished.
      const shown = await ok(a, alice, "GET", `/api/v1_alpha/async_refreshes/${refreshId}`);
      assert.equal(shown.async_refresh.status, "finished");
    });

    await t.step("unknown ids are 404, no token is 401", async () => {
      const unknown = await callJson(a, alice, "GET", "/api/v1_alpha/async_refreshes/nope");
      assert.equal(unknown.status, 404);
      assert.equal(typeof unknown.body.error, "string");
      const anonymous = await callJson(
        a,
        null,
        "GET",
        `/api/v1_alpha/async_refreshes/${refreshId}`,
      );
      assert.equal(anonymous.status, 401);
    });
    await t.step(
      "a hostile collection: only public and unlisted replies to the status",
      async () => {
        const o = hostile.origin;
        const eve = hostile.publishActor("eve");
        const note = (path: string, extra: Record<string, unknown>) =>
          hostile.serve(path, {
            "@context": AS,
            id: `${o}${path}`,
            type: "Note",
            attributedTo: eve,
            content: `<p>${path}</p>`,
            published: new Date().toISOString(),
            ...extra,
          });
        const rootUri = `${o}/notes/root`;
        const publicly = { to: [`${AS}#Public`], cc: [`${eve}/followers`] };
        note("/notes/root", {
          ...publicly,
          replies: {
            id: `${rootUri}/replies`,
            type: "Collection",
            first: {
              type: "CollectionPage",
              partOf: `${rootUri}/replies`,
              items: [`${o}/notes/good`, `${o}/notes/private`, `${o}/notes/unrelated`],
              next: `${rootUri}/replies?page=2`,
            },
          },
        });
        // The next page names itself as next: read once.
        hostile.serve("/notes/root/replies", {
          "@context": AS,
          id: `${rootUri}/replies?page=2`,
          type: "CollectionPage",
          items: [`${o}/notes/unlisted`],
          next: `${rootUri}/replies?page=2`,
        });
        note("/notes/good", { ...publicly, inReplyTo: rootUri });
        note("/notes/unlisted", {
          to: [`${eve}/followers`],
          cc: [`${AS}#Public`],
          inReplyTo: rootUri,
        });
        note("/notes/private", { to: [`${eve}/followers`], inReplyTo: rootUri });
        note("/notes/unrelated", publicly);
        const search = await ok(
          a,
          alice,
          "GET",
          `/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(rootUri)}`,
        );
        const id = search.statuses[0].id;
        const res = await callJson(a, alice, "GET", `/api/v1/statuses/${id}/context`);
        const refresh = res.headers.get("mastodon-async-refresh")?.match(HEADER)?.[1];
        assert.ok(refresh, "a crawl starts");
        const done = await eventually("the hostile crawl to finish", async () => {
          const shown = await ok(a, alice, "GET", `/api/v1_alpha/async_refreshes/${refresh}`);
          return shown.async_refresh.status === "finished" ? shown.async_refresh : null;
        }, 60_000);
        assert.equal(done.result_count, 2);
        assert.ok(await storedStatus(a, `${o}/notes/good`));
        assert.ok(await storedStatus(a, `${o}/notes/unlisted`));
        assert.equal(await storedStatus(a, `${o}/notes/private`), undefined);
        assert.equal(await storedStatus(a, `${o}/notes/unrelated`), undefined);
        assert.equal(hostile.hits("/notes/root/replies"), 1, "a page is read once");
        const context = await ok(a, alice, "GET", `/api/v1/statuses/${id}/context`);
        assert.equal(context.descendants.length, 2);
      },
    );
  } finally {
    await hostile.close();
    await peer.close();
    await closeAll(a, b);
  }
});
