/**
 * Issue 19's outbound terms between two Rookery instances, over https (the
 * test CA) and over plain http (origins http://localhost and
 * http://127.0.0.1): B's bob follows A's alice, alice posts in French with
 * a content warning and a focused picture.
 *
 * - Every request A makes to B carries A's `Rookery/<version> (+<origin>/)`.
 * - The Create B receives carries `contentMap`/`summaryMap` and the
 *   attachment's `blurhash`, `focalPoint`, `width` and `height`; its LD
 *   signature and object integrity proof verify (they cover the added
 *   terms), and B stores it.
 * - An Undo of a follow request to a locked account leaves no request.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { accounts, mediaAttachments } from "../../db/schema/mod.ts";
import { type InstanceOptions, startInstance, test, type TestInstance } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { mediaRow } from "../fixtures/media.ts";
import { eventually as waitFor } from "../fixtures/wait.ts";
import { arrived, closeAll, followRemote, remoteId } from "../fixtures/federation.ts";
import { ROOKERY_VERSION } from "../../version.ts";
import { verifyJsonLd, verifyObject } from "@fedify/fedify";
import { Create, Update } from "@fedify/vocab";
import { getDocumentLoader } from "@fedify/vocab-runtime";

/** First contacts make keys and fetch actors; on a loaded machine that takes a while. */
const eventually = <T>(what: string, check: () => Promise<T | null | undefined | false>) =>
  waitFor(what, check, 60_000);

type Json = Record<string, any>;

/** What B received from outside its own API: path, User-Agent and JSON body of each request. */
interface Received {
  path: string;
  userAgent: string;
  body: Promise<Json | null>;
}

const BLURHASH = "LEHV6nWB2yk8pyo0adR*.7kCMdnj";

async function roundTrip(t: Deno.TestContext, a: TestInstance, b: TestInstance, seen: Received[]) {
  const alice = await createUser(a, "alice");
  const carol = await createUser(a, "carol", { account: { locked: true } });
  const bob = await createUser(b, "bob");
  const expectedAgent = `Rookery/${ROOKERY_VERSION} (+${a.origin}/)`;

  await t.step("a French post with a CW and a focused picture reaches B whole", async () => {
    await followRemote(b, bob, a, alice);
    const mediaId = await mediaRow(a, alice);
    await a.rookery.ctx.database.db.update(mediaAttachments).set({
      meta: { original: { width: 2, height: 1 }, focus: { x: 0.5, y: -0.25 } },
    }).where(eq(mediaAttachments.id, mediaId));
    const post = await postStatus(a, alice, "Bonjour", {
      language: "fr",
      spoiler_text: "Salut",
      media_ids: [mediaId],
    });
    const row = await arrived(b, post.uri);

    const bodies = await Promise.all(seen.map((r) => r.body));
    const create = bodies.find((body) => body?.type === "Create" && body.object?.id === post.uri);
    assert.ok(create, "B received the Create");
    assert.deepEqual(create.object.contentMap, { fr: create.object.content });
    assert.deepEqual(create.object.summaryMap, { fr: "Salut" });
    const attachment = [create.object.attachment].flat()[0];
    assert.equal(attachment.blurhash, BLURHASH);
    assert.deepEqual(attachment.focalPoint, [0.5, -0.25]);
    assert.equal(attachment.width, 2);
    assert.equal(attachment.height, 1);
    // The signatures cover the added terms: the LD signature and the object integrity proof verify.
    const loader = getDocumentLoader({ allowPrivateAddress: true });
    const options = { documentLoader: loader, contextLoader: loader };
    assert.ok(await verifyJsonLd(create, options), "the LD signature verifies");
    const tampered = { ...create, object: { ...create.object, summaryMap: { fr: "autre" } } };
    assert.equal(await verifyJsonLd(tampered, options), false, "and covers summaryMap");
    const { signature: _, ...unsigned } = create;
    assert.ok(await verifyObject(Create, unsigned, options), "the object integrity proof verifies");
    // (B shows the CW; what it keeps of blurhash and focalPoint is its reader's business: Fedify
    // hands LD-signed activities over re-compacted with its own context, toot: terms expanded.)
    const shown = await ok(b, bob, "GET", `/api/v1/statuses/${row.id}`);
    assert.equal(shown.spoiler_text, "Salut");
  });

  await t.step("alice's profile terms reach B with her Update, proved", async () => {
    await a.rookery.ctx.database.db.update(accounts).set({
      avatarUrl: "https://cdn.example/alice.png",
      avatarDescription: "A cat in a hat",
      headerUrl: "https://cdn.example/hill.jpg",
      headerDescription: "A green hill",
      showFeatured: false,
      showMedia: false,
      showMediaReplies: false,
    }).where(eq(accounts.id, alice.id));
    await ok(a, alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Al" });
    const aliceUri = `${a.origin}/users/alice`;
    const row = await eventually("alice's terms on B", async () => {
      const [found] = await b.rookery.ctx.database.db.select().from(accounts)
        .where(eq(accounts.uri, aliceUri));
      return found?.displayName === "Al" ? found : undefined;
    });
    assert.equal(row.avatarDescription, "A cat in a hat");
    assert.equal(row.headerDescription, "A green hill");
    assert.deepEqual([row.showFeatured, row.showMedia, row.showMediaReplies], [
      false,
      false,
      false,
    ]);
    const bodies = await Promise.all(seen.map((r) => r.body));
    const update = bodies.find((body) => body?.type === "Update" && body.object?.id === aliceUri);
    assert.ok(update, "B received the Update");
    assert.equal(update.object.webfinger, `acct:alice@${a.domain}`);
    assert.equal(update.object.icon.name, "A cat in a hat");
    const loader = getDocumentLoader({ allowPrivateAddress: true });
    const { signature: _, ...unsigned } = update;
    const proved = await verifyObject(Update, unsigned, {
      documentLoader: loader,
      contextLoader: loader,
    });
    assert.ok(proved, "the proof covers the added terms");
  });

  await t.step("every request A made to B carried A's User-Agent", () => {
    const fromA = seen.filter((r) => !r.path.startsWith("/api/"));
    assert.ok(fromA.some((r) => r.path.endsWith("/inbox")), "deliveries seen");
    assert.ok(fromA.some((r) => r.path === "/users/bob"), "an actor fetch seen");
    assert.deepEqual(new Set(fromA.map((r) => r.userAgent)), new Set([expectedAgent]));
  });

  await t.step("an Undo of a follow request to a locked account leaves no request", async () => {
    const carolOnB = await remoteId(b, a, carol);
    const res = await callJson(b, bob, "POST", `/api/v1/accounts/${carolOnB}/follow`);
    assert.equal(res.status, 200);
    await eventually(
      "the request on A",
      async () => (await ok(a, carol, "GET", "/api/v1/follow_requests")).length === 1,
    );
    const undone = await callJson(b, bob, "POST", `/api/v1/accounts/${carolOnB}/unfollow`);
    assert.equal(undone.status, 200);
    await eventually(
      "no request on A",
      async () => (await ok(a, carol, "GET", "/api/v1/follow_requests")).length === 0,
    );
  });
}

/** B's options recording what it receives outside its API. */
function recording(seen: Received[], options: InstanceOptions): InstanceOptions {
  return {
    ...options,
    onRequest: (request) => {
      const path = new URL(request.url).pathname;
      const json = request.method === "POST" && !path.startsWith("/api/");
      seen.push({
        path,
        userAgent: request.headers.get("user-agent") ?? "",
        body: json ? request.clone().json().catch(() => null) : Promise.resolve(null),
      });
    },
  };
}

test("outbound terms between two Rookery instances, over https and plain http", async (t) => {
  await t.step("https", async (t) => {
    const seen: Received[] = [];
    const a = await startInstance({ tls: true });
    const b = await startInstance(recording(seen, { tls: true }));
    try {
      await roundTrip(t, a, b, seen);
    } finally {
      await closeAll(a, b);
    }
  });
  await t.step("plain http", async (t) => {
    const seen: Received[] = [];
    const a = await startInstance({ listen: true });
    const b = await startInstance(recording(seen, { listen: true, originHost: "127.0.0.1" }));
    try {
      assert.match(a.origin, /^http:\/\/localhost:\d+$/);
      assert.match(b.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
      await roundTrip(t, a, b, seen);
    } finally {
      await closeAll(a, b);
    }
  });
});
