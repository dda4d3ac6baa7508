/**
 * Two servers on plain http on one machine find and follow each other by
 * handle (federation/fetch/webfinger_client.ts asks WebFinger with the scheme of
 * our own ORIGIN): A (http://localhost:port) resolves `@bella@127.0.0.1:port`
 * of B, follows her, gets her post in its home timeline, and its favourite
 * and reply reach B. A third server on https never asks B over http.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually as waitFor } from "../fixtures/wait.ts";
import { closeAll, storedStatus } from "../fixtures/federation.ts";
import { webFingerScheme } from "../../federation/fetch/webfinger_client.ts";

/** First contacts make keys and fetch actors; on a loaded machine that takes a while. */
const eventually = <T>(what: string, check: () => Promise<T | null | undefined | false>) =>
  waitFor(what, check, 60_000);

test("federation between two servers on plain http", async (t) => {
  let webFingerOnB = 0;
  const a = await startInstance({ listen: true });
  const b = await startInstance({
    listen: true,
    originHost: "127.0.0.1",
    onRequest: (request) => {
      if (new URL(request.url).pathname === "/.well-known/webfinger") webFingerOnB++;
    },
  });
  const c = await startInstance({ tls: true });
  try {
    assert.match(a.origin, /^http:\/\/localhost:\d+$/);
    assert.match(b.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    const alice = await createUser(a, "alice");
    const bella = await createUser(b, "bella");
    const handle = `bella@${b.domain}`;
    let bellaOnA = "";

    await t.step("A finds B's handle (with its port) through WebFinger over http", async () => {
      const found = await callJson(
        a,
        alice,
        "GET",
        `/api/v1/accounts/search?resolve=true&q=${encodeURIComponent(`@${handle}`)}`,
      );
      assert.equal(found.status, 200);
      assert.equal(found.body.length, 1);
      assert.equal(found.body[0].acct, handle);
      assert.equal(found.body[0].uri, `${b.origin}/users/bella`);
      bellaOnA = found.body[0].id;
      const looked = await callJson(
        a,
        alice,
        "GET",
        `/api/v1/accounts/lookup?acct=${encodeURIComponent(handle)}`,
      );
      assert.equal(looked.status, 200);
      assert.equal(looked.body.id, bellaOnA);
    });

    await t.step(
      "A follows; B's post reaches A's home; a favourite and a reply go back",
      async () => {
        const follow = await callJson(a, alice, "POST", `/api/v1/accounts/${bellaOnA}/follow`);
        assert.equal(follow.status, 200);
        await eventually("the follow accepted", async () => {
          const rel = await callJson(
            a,
            alice,
            "GET",
            `/api/v1/accounts/relationships?id[]=${bellaOnA}`,
          );
          return rel.body[0]?.following === true;
        });
        // B knows alice under the handle A's WebFinger (http, like A's actor) confirms.
        const followers = await callJson(b, bella, "GET", `/api/v1/accounts/${bella.id}/followers`);
        assert.deepEqual(followers.body.map((x: any) => x.acct), [`alice@${a.domain}`]);

        const post = await postStatus(b, bella, {
          status: "hello over http",
          visibility: "public",
        });
        const onA = await eventually("the post on A", () => storedStatus(a, post.uri));
        await eventually("the post in A's home timeline", async () => {
          const home = await callJson(a, alice, "GET", "/api/v1/timelines/home");
          return home.body.some((s: any) => s.uri === post.uri);
        });

        const fav = await callJson(a, alice, "POST", `/api/v1/statuses/${onA.id}/favourite`);
        assert.equal(fav.status, 200);
        const reply = await postStatus(a, alice, {
          status: `@${handle} hello back`,
          in_reply_to_id: onA.id,
          visibility: "public",
        });
        await eventually("the favourite counted on B", async () => {
          const s = await callJson(b, bella, "GET", `/api/v1/statuses/${post.id}`);
          return s.body.favourites_count === 1;
        });
        const replyOnB = await eventually("the reply on B", () => storedStatus(b, reply.uri));
        assert.equal(replyOnB.inReplyToId, post.id);
        await eventually("the mention notification on B", async () => {
          const n = await callJson(b, bella, "GET", "/api/v1/notifications");
          return n.body.some((x: any) =>
            x.type === "mention" && x.account.acct === `alice@${a.domain}`
          );
        });
      },
    );

    await t.step("a server on https never asks for a handle over http", async () => {
      assert.equal(webFingerScheme(c.rookery.ctx, b.origin), "https:");
      const carl = await createUser(c, "carl");
      const before = webFingerOnB;
      const found = await callJson(
        c,
        carl,
        "GET",
        `/api/v1/accounts/search?resolve=true&q=${encodeURIComponent(handle)}`,
      );
      assert.equal(found.status, 200);
      assert.deepEqual(found.body, []);
      assert.equal(webFingerOnB, before, "no WebFinger request reached B");
    });
  } finally {
    await closeAll(c, b, a);
  }
});
