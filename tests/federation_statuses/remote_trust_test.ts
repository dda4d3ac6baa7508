/**
 * What a remote status may claim about threads, and remote edits racing
 * deletes. Hand-written peers (tests/fixtures/fake_peer.ts) deliver signed
 * activities to one instance:
 * - a reply to a local status deleted while the reply was being stored
 *   (its quote took that long to fetch) does not count as a reply to it,
 *   and neither does one that names an already deleted status;
 * - a reply joins its parent's conversation whatever `context` it names; a
 *   status without a parent joins a thread by `context` only when the
 *   thread is its own server's;
 * - an Update applied after the status was deleted, or older than the
 *   version already stored, changes nothing.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { accounts, statusEdits, statuses } from "../../db/schema/mod.ts";
import { deleteStatus } from "../../actors/statuses/delete.ts";
import { editRemoteStatus } from "../../actors/statuses/edit_remote.ts";
import { startInstance, test } from "../harness.ts";
import { type FakePeer, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { holdTransactionOf } from "../fixtures/gate.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
/** The activity context, with FEP-044f's `quote`. */
const CONTEXT = [AS, { quote: { "@id": "https://w3id.org/fep/044f#quote", "@type": "@id" } }];

test("remote statuses: deleted parents, threads by context, edits racing deletes", async (t) => {
  const rookery = await startInstance();
  const home = await startFakePeer();
  const other = await startFakePeer();
  const send = (request: Request) => rookery.request(request.url, request);
  const inbox = `${rookery.origin}/inbox`;
  const db = rookery.rookery.ctx.database.db;
  const actors = new Map<FakePeer, string>([
    [home, home.publishActor("poster")],
    [other, other.publishActor("stranger")],
  ]);
  let serial = 0;
  const note = (peer: FakePeer, content: string, extra: Record<string, unknown> = {}) => ({
    id: `${actors.get(peer)}/notes/${++serial}`,
    type: "Note",
    attributedTo: actors.get(peer),
    to: [PUBLIC],
    content,
    published: new Date().toISOString(),
    ...extra,
  });
  const deliver = async (peer: FakePeer, type: string, object: Record<string, unknown>) => {
    const actor = actors.get(peer)!;
    const activity = {
      "@context": CONTEXT,
      id: `${object.id}/${type.toLowerCase()}/${++serial}`,
      type,
      actor,
      to: [PUBLIC],
      object,
    };
    const res = await peer.deliver(inbox, activity, { keyId: `${actor}#main-key`, send });
    assert.equal(await statusOf(res), 202);
  };
  /** A marker post by `peer`: once stored, that peer's earlier deliveries were handled. */
  const settle = async (peer: FakePeer) => {
    const marker = note(peer, "marker");
    await deliver(peer, "Create", marker);
    await eventually("the marker post", () => storedStatus(rookery, marker.id));
  };
  const row = async (id: string) =>
    (await db.select().from(statuses).where(eq(statuses.id, id)))[0];
  const alice = await createUser(rookery, "alice");
  try {
    await t.step("a reply to a status deleted meanwhile does not count as its reply", async () => {
      const parent = await postStatus(rookery, alice, "soon gone");
      // The reply quotes a post its server is slow to serve: the parent is
      // deleted after the reply's parent was looked up, before it is stored.
      const asked = Promise.withResolvers<void>();
      const deleted = Promise.withResolvers<void>();
      home.route("/slow/quoted", async () => {
        asked.resolve();
        await deleted.promise;
        return new Response("gone", { status: 404 });
      });
      const reply = note(home, "a late reply", {
        inReplyTo: parent.uri,
        quote: `${home.origin}/slow/quoted`,
      });
      await deliver(home, "Create", reply);
      await asked.promise;
      const del = await callJson(rookery, alice, "DELETE", `/api/v1/statuses/${parent.id}`);
      assert.equal(del.status, 200);
      deleted.resolve();
      const stored = await eventually("the reply", () => storedStatus(rookery, reply.id));
      const gone = await row(parent.id);
      assert.ok(gone.deletedAt);
      assert.equal(gone.repliesCount, 0, "a deleted status gains no replies");
      assert.equal(stored.inReplyToId, null);
      assert.equal(stored.inReplyToUri, parent.uri);
      assert.notEqual(stored.conversationId, gone.conversationId);

      // One naming a status deleted before it came: the same.
      const again = note(home, "another late reply", { inReplyTo: parent.uri });
      await deliver(home, "Create", again);
      const second = await eventually("the second reply", () => storedStatus(rookery, again.id));
      assert.equal(second.inReplyToId, null);
      assert.equal((await row(parent.id)).repliesCount, 0);
    });

    await t.step(
      "a reply joins its parent's thread, and context only its own server's",
      async () => {
        const context = `${home.origin}/contexts/thread-1`;
        const root = note(home, "a thread", { context });
        await deliver(home, "Create", root);
        const rootRow = await eventually("the root", () => storedStatus(rookery, root.id));
        assert.ok(rootRow.conversationId);
        // Its own server files a parentless post under its own thread (a reply
        // whose parent it could not give us, say).
        const sibling = note(home, "same thread, parent unknown", {
          context,
          inReplyTo: `${home.origin}/missing/1`,
        });
        await deliver(home, "Create", sibling);
        const siblingRow = await eventually("the sibling", () => storedStatus(rookery, sibling.id));
        assert.equal(siblingRow.conversationId, rootRow.conversationId);

        // Another server cannot put a post into that thread by naming it…
        const intruder = note(other, "@alice joining a thread I have no parent in", { context });
        await deliver(other, "Create", intruder);
        const intruderRow = await eventually(
          "the intruder",
          () => storedStatus(rookery, intruder.id),
        );
        assert.notEqual(intruderRow.conversationId, rootRow.conversationId);
        // …nor into one of ours.
        const local = await postStatus(rookery, alice, "a local thread");
        const localRow = await row(local.id);
        const ours = note(home, "claims a local thread", {
          context: `${rookery.origin}/contexts/${localRow.conversationId}`,
        });
        await deliver(home, "Create", ours);
        const oursRow = await eventually("the claim", () => storedStatus(rookery, ours.id));
        assert.notEqual(oursRow.conversationId, localRow.conversationId);

        // A reply joins its parent's thread, whatever context it names.
        const reply = note(other, "a reply", { inReplyTo: local.uri, context });
        await deliver(other, "Create", reply);
        const replyRow = await eventually("the reply", () => storedStatus(rookery, reply.id));
        assert.equal(replyRow.inReplyToId, local.id);
        assert.equal(replyRow.conversationId, localRow.conversationId);
        assert.equal((await row(local.id)).repliesCount, 1);
      },
    );

    await t.step(
      "an Update applied after a Delete, or older than the stored version, is ignored",
      async () => {
        const [poster] = await db.select().from(accounts)
          .where(eq(accounts.uri, actors.get(home)!));
        const original = note(home, "first words");
        await deliver(home, "Create", original);
        const stored = await eventually("the post", () => storedStatus(rookery, original.id));

        // The Update has read the status and waits; a Delete handled
        // meanwhile (by another worker) runs to its end.
        let gate = holdTransactionOf(rookery, "editRemoteStatus");
        await deliver(home, "Update", {
          ...original,
          content: "edited after the delete",
          updated: new Date(Date.now() + 1000).toISOString(),
        });
        await gate.reached;
        await deleteStatus(rookery.rookery.ctx, poster.id, stored.id);
        gate.release();
        await settle(home);
        gate.restore();
        const gone = await row(stored.id);
        assert.ok(gone.deletedAt);
        assert.equal(gone.content, stored.content);
        assert.equal(gone.editedAt, null);
        const edits = await db.select().from(statusEdits).where(
          eq(statusEdits.statusId, stored.id),
        );
        assert.equal(edits.length, 0);

        // Two Updates at once: the newer one is applied first, the older one then changes nothing.
        const post = note(home, "<p>version zero</p>");
        await deliver(home, "Create", post);
        const live = await eventually("the second post", () => storedStatus(rookery, post.id));
        gate = holdTransactionOf(rookery, "editRemoteStatus");
        await deliver(home, "Update", {
          ...post,
          content: "<p>version one</p>",
          updated: new Date(Date.now() + 1000).toISOString(),
        });
        await gate.reached;
        const newer = await editRemoteStatus(rookery.rookery.ctx, {
          accountId: poster.id,
          statusId: live.id,
          content: "<p>version two</p>",
          spoilerText: "",
          sensitive: false,
          language: null,
          mentionedAccountIds: [],
          tagNames: [],
          media: [],
          poll: null,
          editedAt: new Date(Date.now() + 2000),
        });
        assert.equal(newer.content, "<p>version two</p>");
        gate.release();
        await settle(home);
        gate.restore();
        assert.equal((await row(live.id)).content, "<p>version two</p>");
        const versions = await db.select().from(statusEdits)
          .where(eq(statusEdits.statusId, live.id)).orderBy(statusEdits.createdAt);
        assert.deepEqual(versions.map((v) => v.content), [
          "<p>version zero</p>",
          "<p>version two</p>",
        ]);
      },
    );
  } finally {
    await rookery.close({ destroy: true });
    await home.close();
    await other.close();
  }
});
