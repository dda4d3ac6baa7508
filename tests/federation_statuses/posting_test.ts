/**
 * Posting across two instances: public, unlisted, private and direct
 * statuses reach the follower's server addressed as Mastodon addresses them
 * and are stored there with the same visibility, tags, mentions and reply
 * links; private and direct ones are not fetchable by others; a reply comes
 * back to the origin (replies_count, mention notification).
 */
import assert from "node:assert/strict";
import { test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { arrived, closeAll, followRemote, remoteId, startPair } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

function audienceOf(activity: any): { to: string[]; cc: string[] } {
  const list = (v: unknown) => (v == null ? [] : Array.isArray(v) ? v : [v]) as string[];
  const expand = (v: string) => v === "as:Public" || v === "Public" ? PUBLIC : v;
  return { to: list(activity.to).map(expand), cc: list(activity.cc).map(expand) };
}

test("public, unlisted, private and direct posts reach the other server as addressed", async () => {
  const received: Promise<any>[] = [];
  // What B's inboxes receive (bodies read asynchronously).
  const { a, b } = await startPair({
    b: {
      onRequest(req) {
        if (req.method === "POST" && new URL(req.url).pathname.endsWith("inbox")) {
          received.push(req.clone().json().catch(() => null));
        }
      },
    },
  });
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    const carol = await createUser(b, "carol");
    const dave = await createUser(b, "dave");
    await followRemote(b, bob, a, alice);
    const aliceUri = `${a.origin}/users/alice`;
    const followers = `${aliceUri}/followers`;
    const carolUri = `${b.origin}/users/carol`;
    await remoteId(a, b, carol);

    const pub = await postStatus(a, alice, {
      status: "Hello #fediverse world",
      visibility: "public",
    });
    const unl = await postStatus(a, alice, { status: "quietly", visibility: "unlisted" });
    const priv = await postStatus(a, alice, { status: "followers only", visibility: "private" });
    const dm = await postStatus(a, alice, {
      status: `@carol@${b.domain} secret`,
      visibility: "direct",
    });

    // Stored on B with the same visibility.
    const pubOnB = await arrived(b, pub.uri, "public post");
    const unlOnB = await arrived(b, unl.uri, "unlisted post");
    const privOnB = await arrived(b, priv.uri, "private post");
    const dmOnB = await arrived(b, dm.uri, "direct post");
    assert.equal(pubOnB.visibility, "public");
    assert.equal(unlOnB.visibility, "unlisted");
    assert.equal(privOnB.visibility, "private");
    assert.equal(dmOnB.visibility, "direct");

    // Bob sees the public post through the API, with its tag, on his home timeline.
    const shown = await callJson(b, bob, "GET", `/api/v1/statuses/${pubOnB.id}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.uri, pub.uri);
    assert.equal(shown.body.account.acct, `alice@${a.domain}`);
    assert.match(shown.body.content, /Hello/);
    assert.deepEqual(shown.body.tags.map((t: any) => t.name), ["fediverse"]);
    await eventually("home timeline", async () => {
      const home = await callJson(b, bob, "GET", "/api/v1/timelines/home");
      return home.status === 200 && home.body.some((s: any) => s.id === privOnB.id);
    });
    // The private one: bob (a follower) sees it; dave does not.
    assert.equal((await callJson(b, bob, "GET", `/api/v1/statuses/${privOnB.id}`)).status, 200);
    assert.equal((await callJson(b, dave, "GET", `/api/v1/statuses/${privOnB.id}`)).status, 404);
    // The direct one: carol sees it, with her mention; bob does not.
    const dmShown = await callJson(b, carol, "GET", `/api/v1/statuses/${dmOnB.id}`);
    assert.equal(dmShown.status, 200);
    assert.equal(dmShown.body.visibility, "direct");
    assert.equal(dmShown.body.mentions[0].acct, "carol");
    assert.equal((await callJson(b, bob, "GET", `/api/v1/statuses/${dmOnB.id}`)).status, 404);
    // Carol does not follow alice: by Mastodon's default policy (for_private_mentions:
    // filter) the mention is filtered into a notification request, not lost.
    await eventually("carol's filtered mention notification", async () => {
      const n = await callJson(b, carol, "GET", "/api/v1/notifications?include_filtered=true");
      return n.status === 200 && n.body.some((x: any) => x.type === "mention");
    });
    assert.deepEqual((await callJson(b, carol, "GET", "/api/v1/notifications")).body, []);
    const requests = await callJson(b, carol, "GET", "/api/v1/notifications/requests");
    assert.deepEqual(
      requests.body.map((r: any) => [r.account.acct, r.last_status?.id]),
      [[`alice@${a.domain}`, dmOnB.id]],
    );

    // Addressing as federation-notes.md's table says.
    const creates = (await Promise.all(received)).filter((x) => x?.type === "Create");
    const byObject = (uri: string) => creates.find((c) => c.object?.id === uri);
    const p = audienceOf(byObject(pub.uri));
    assert.deepEqual(p.to, [PUBLIC]);
    assert.ok(p.cc.includes(followers));
    const u = audienceOf(byObject(unl.uri));
    assert.ok(u.cc.includes(PUBLIC) && !u.to.includes(PUBLIC));
    assert.ok(u.to.includes(followers));
    const v = audienceOf(byObject(priv.uri));
    assert.ok([...v.to, ...v.cc].includes(followers));
    assert.ok(![...v.to, ...v.cc].includes(PUBLIC));
    const d = audienceOf(byObject(dm.uri));
    assert.deepEqual([...d.to, ...d.cc], [carolUri]);
    const dmObject = byObject(dm.uri).object;
    const mentionTags = [dmObject.tag].flat().filter((t: any) => t?.type === "Mention");
    assert.equal(mentionTags.length, 1);
    assert.equal(byObject(pub.uri).object.attributedTo, aliceUri);
    assert.ok(byObject(pub.uri).signature, "LD-signed (peers forward replies only then)");

    // Private and direct posts are not served to an anonymous or unrelated fetcher.
    for (const uri of [priv.uri, dm.uri]) {
      const res = await fetch(uri, { headers: { Accept: "application/activity+json" } });
      await res.body?.cancel();
      assert.equal(res.status, 404, uri);
    }
    const daveLoader = await b.rookery.ctx.federation.createContext(
      new URL(b.origin),
      b.rookery.ctx,
    )
      .getDocumentLoader({ identifier: "dave" });
    await assert.rejects(() => daveLoader(priv.uri));
    const bobLoader = await b.rookery.ctx.federation.createContext(new URL(b.origin), b.rookery.ctx)
      .getDocumentLoader({ identifier: "bob" });
    assert.equal(((await bobLoader(priv.uri)).document as any).id, priv.uri, "a follower may");

    // Bob replies: A stores it as a reply, counts it and notifies Alice.
    const reply = await postStatus(b, bob, {
      status: `@alice@${a.domain} hi back`,
      in_reply_to_id: pubOnB.id,
    });
    const replyOnA = await arrived(a, reply.uri, "reply");
    assert.equal(replyOnA.inReplyToId, pub.id);
    await eventually("replies_count on A", async () => {
      const s = await callJson(a, alice, "GET", `/api/v1/statuses/${pub.id}`);
      return s.body.replies_count === 1;
    });
    await eventually("mention notification on A", async () => {
      const n = await callJson(a, alice, "GET", "/api/v1/notifications?types[]=mention");
      return n.body.some((x: any) => x.status?.id === replyOnA.id);
    });
    const ctxRes = await callJson(a, alice, "GET", `/api/v1/statuses/${pub.id}/context`);
    assert.deepEqual(ctxRes.body.descendants.map((s: any) => s.id), [replyOnA.id]);
  } finally {
    await closeAll(a, b);
  }
});
