/**
 * Inbox forwarding across three instances (federation-notes, "Inbox
 * forwarding"): carol on C replies to alice's public post on A; C delivers
 * the reply to A only, and A forwards it, as received (LD-signed and
 * carrying carol's FEP-8b32 proof), to alice's followers, so bob's server B
 * learns of it without following carol. B takes it as carol's on her proof,
 * without fetching anything from C (not on the Linked Data signature: an old
 * one can be replayed); a copy changed on the way is refused. Carol's Delete
 * of the reply is forwarded the same way and removes it from B.
 * Followers-only and direct replies are not forwarded.
 */
import assert from "node:assert/strict";
import { resolveRemoteStatus } from "../../federation/remote/statuses.ts";
import { FetchBudget } from "../../federation/fetch/budget.ts";
import { startInstance, test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import {
  arrived,
  closeAll,
  followRemote,
  postSigned,
  storedStatus,
} from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

/** A POST to an inbox: its parsed body and the key that signed it (either HTTP signature spec). */
interface InboxPost {
  body: any;
  keyId: string | null;
}

function keyIdOf(request: Request): string | null {
  // draft-cavage: Signature: keyId="…",…; RFC 9421: Signature-Input: sig1=(…);keyid="…"
  const header = request.headers.get("signature-input") ?? request.headers.get("signature") ?? "";
  return /keyid="([^"]+)"/i.exec(header)?.[1] ?? null;
}

function objectIdOf(activity: any): string | null {
  const object = activity?.object;
  return typeof object === "string" ? object : object?.id ?? null;
}

test("a public reply to a local post is forwarded to the author's followers; private ones are not", async () => {
  // Everything B's inboxes receive (bodies read asynchronously).
  const toB: Promise<InboxPost>[] = [];
  // Every GET C serves, with its signer (lookups are signed): B reads the reply from C.
  const fetchedFromC: string[] = [];
  const a = await startInstance({ tls: true });
  const b = await startInstance({
    tls: true,
    onRequest(req) {
      if (req.method === "POST" && new URL(req.url).pathname.endsWith("inbox")) {
        const keyId = keyIdOf(req);
        toB.push(
          req.clone().json().then((body) => ({ body, keyId }), () => ({ body: null, keyId })),
        );
      }
    },
  });
  const c = await startInstance({
    tls: true,
    onRequest(req) {
      const path = new URL(req.url).pathname;
      if (req.method === "GET") fetchedFromC.push(`${path} ${keyIdOf(req)}`);
    },
  });
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    const carol = await createUser(c, "carol");
    await followRemote(b, bob, a, alice);

    const original = await postStatus(a, alice, {
      status: "What do you think?",
      visibility: "public",
    });
    const originalOnB = await arrived(b, original.uri, "alice's post on B");

    // Carol does not follow alice: C learns of the post by looking it up, as a search would.
    const cContext = c.rookery.ctx.federation.createContext(new URL(c.origin), c.rookery.ctx);
    const originalOnC = await resolveRemoteStatus(
      cContext,
      original.uri,
      FetchBudget.of(cContext.data),
    );
    assert.ok(originalOnC, "C resolved alice's post");

    const mention = `@alice@${a.domain}`;
    const reply = (status: string, visibility: string) =>
      postStatus(c, carol, {
        status: `${mention} ${status}`,
        visibility,
        in_reply_to_id: originalOnC.id,
      });

    // The negative cases first: once A has stored them, their (non-)forwarding was decided
    // before the public reply below even left C.
    const privateReply = await reply("for my followers", "private");
    const directReply = await reply("just between us", "direct");
    await arrived(a, privateReply.uri, "the private reply on A");
    await arrived(a, directReply.uri, "the direct reply on A");

    const publicReply = await reply("I agree", "public");
    await arrived(a, publicReply.uri, "the public reply on A");

    // B gets the public reply and shows it in the thread of alice's post.
    const replyOnB = await arrived(b, publicReply.uri, "the forwarded reply on B");
    assert.equal(replyOnB.inReplyToId, originalOnB.id);
    assert.equal(replyOnB.visibility, "public");
    await eventually("the reply in the thread on B", async () => {
      const thread = await callJson(b, bob, "GET", `/api/v1/statuses/${originalOnB.id}/context`);
      return thread.status === 200 &&
        thread.body.descendants.some((s: any) => s.uri === publicReply.uri);
    });

    // It came as carol's Create, LD-signed and proved by carol, HTTP-signed by A
    // (the forwarder). B took it on carol's proof: nothing was fetched from C for it.
    const posts = await Promise.all(toB);
    const forwarded = posts.filter((p) => objectIdOf(p.body) === publicReply.uri);
    assert.ok(forwarded.length > 0, "B's inbox received the reply");
    for (const { body, keyId } of forwarded) {
      assert.equal(body.type, "Create");
      assert.equal(body.actor, `${c.origin}/users/carol`);
      assert.ok(body.signature, "the forwarded Create keeps carol's LD signature");
      assert.ok(body.proof?.verificationMethod?.startsWith(`${c.origin}/users/carol#`));
      assert.ok(keyId?.startsWith(`${a.origin}/`), `signed by A, not ${keyId}`);
    }
    const replyPath = new URL(publicReply.uri).pathname;
    assert.deepEqual(
      fetchedFromC.filter((line) => line.startsWith(`${replyPath} `)),
      [],
      "B read the forwarded reply from C",
    );

    // The same Create, changed on the way and relayed by A: carol's proof no longer holds.
    const genuine = forwarded[0].body;
    const tampered = {
      ...genuine,
      object: { ...genuine.object, content: "<p>I disagree</p>", contentMap: undefined },
    };
    assert.equal(await postSigned(a, alice, `${b.origin}/inbox`, tampered), 401);
    assert.equal((await storedStatus(b, publicReply.uri))?.content.includes("disagree"), false);

    // Carol deletes her reply: C tells A, A forwards the Delete to B, B removes it.
    const deleted = await callJson(c, carol, "DELETE", `/api/v1/statuses/${publicReply.id}`);
    assert.equal(deleted.status, 200);
    await eventually(
      "the reply deleted on B",
      async () => (await storedStatus(b, publicReply.uri))?.deletedAt != null,
    );
    const deletes = (await Promise.all(toB)).filter((p) =>
      p.body?.type === "Delete" && objectIdOf(p.body) === publicReply.uri
    );
    assert.ok(deletes.length > 0 && deletes.every((p) => p.keyId?.startsWith(`${a.origin}/`)));
    assert.deepEqual(fetchedFromC.filter((line) => line.startsWith(`${replyPath} `)), []);

    // Neither the followers-only nor the direct reply reached B.
    for (const hidden of [privateReply, directReply]) {
      assert.ok(!posts.some((p) => objectIdOf(p.body) === hidden.uri), `${hidden.uri} forwarded`);
      assert.equal(await storedStatus(b, hidden.uri), undefined);
    }
  } finally {
    await closeAll(a, b, c);
  }
});
