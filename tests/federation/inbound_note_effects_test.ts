/**
 * A signed Create(Note) from another server, stored with every side effect
 * of posting: its conversation (a new one, its parent's for a reply, the
 * one its `context` names), the feeds of its author's local followers, the
 * `status` notification of those who rang the bell, the streaming events,
 * and its author's statuses_count. The posting transaction sends several of
 * these statements together (actors/statuses/write_status.ts); each must
 * still take effect.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { publicNoteCreate, startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { arrived } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { ok } from "../fixtures/api.ts";
import { WsClient } from "../streaming/helpers.ts";
import { accounts, conversations, follows } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";

test("an inbound note: conversation, feeds, bell, streams and count", async (t) => {
  const rookery = await startInstance({ listen: true });
  const peer = await startFakePeer();
  const actor = peer.publishActor("rita", { followers: `${peer.origin}/users/rita/followers` });
  const db = rookery.rookery.ctx.database.db;
  const send = (request: Request) => rookery.request(request.url, request);
  const deliver = async (name: string, extra: Record<string, unknown> = {}) => {
    const id = `${actor}/notes/${name}`;
    const activity = publicNoteCreate(actor, id, { content: `<p>${name}</p>`, ...extra });
    const inbox = `${rookery.origin}/inbox`;
    assert.equal(
      await statusOf(await peer.deliver(inbox, activity, { keyId: `${actor}#main-key`, send })),
      202,
    );
    return await arrived(rookery, id);
  };
  const alice = await createUser(rookery, "alice");
  const auth = { headers: { authorization: `Bearer ${alice.token}` } };
  const get = async (path: string) => await (await rookery.request(path, auth)).json();
  let socket: WsClient | null = null;
  try {
    const first = await deliver("first");
    const rita = first.accountId;
    // Alice follows rita and rang the bell.
    await db.insert(follows).values({
      id: newId(),
      accountId: alice.id,
      targetAccountId: rita,
      notify: true,
    });
    socket = await WsClient.open(
      rookery,
      `/api/v1/streaming?stream=user&access_token=${alice.token}`,
    );

    await t.step("a new note: its own conversation, the feed, the bell, the streams", async () => {
      const note = await deliver("second");
      const update = await socket!.next("update", "user");
      assert.equal(JSON.parse(update.payload as string).id, note.id);
      const notification = JSON.parse(
        (await socket!.next("notification", "user")).payload as string,
      );
      assert.equal(notification.type, "status");
      assert.equal(notification.status.id, note.id);
      assert.ok(note.conversationId);
      assert.notEqual(note.conversationId, first.conversationId);
      const [conversation] = await db.select().from(conversations)
        .where(eq(conversations.id, note.conversationId!));
      assert.ok(conversation, "the new conversation's row");
      const home = await get("/api/v1/timelines/home");
      assert.deepEqual(home.map((s: { id: string }) => s.id), [note.id]);
      const bells = await get("/api/v1/notifications?types[]=status");
      assert.deepEqual(bells.map((n: { status: { id: string } }) => n.status.id), [note.id]);
      const [author] = await db.select({ count: accounts.statusesCount }).from(accounts)
        .where(eq(accounts.id, rita));
      assert.equal(author.count, 2);
    });

    await t.step("a reply joins its parent's conversation; a context names one", async () => {
      const parent = await deliver("parent");
      const reply = await deliver("reply", { inReplyTo: parent.uri });
      assert.equal(reply.inReplyToId, parent.id);
      assert.equal(reply.conversationId, parent.conversationId);
      const context = `${peer.origin}/contexts/one`;
      const a = await deliver("context-a", { context });
      const b = await deliver("context-b", { context });
      assert.equal(a.conversationId, b.conversationId);
      assert.notEqual(a.conversationId, parent.conversationId);
      const [author] = await db.select({ count: accounts.statusesCount }).from(accounts)
        .where(eq(accounts.id, rita));
      assert.equal(author.count, 6);
    });
  } finally {
    await socket?.close();
    await peer.close();
    await rookery.close();
  }
});

test("an inbound note no feed here takes is still streamed; a followed hashtag takes it home", async () => {
  // On PGlite such a note skips the fan-out statement (actors/timelines/fanout.ts,
  // reachOf): the public stream must still hear of it, and a followed
  // hashtag is a way into a feed without following the author.
  const rookery = await startInstance({ listen: true });
  const peer = await startFakePeer();
  const actor = peer.publishActor("tess", { followers: `${peer.origin}/users/tess/followers` });
  const send = (request: Request) => rookery.request(request.url, request);
  const deliver = async (name: string, extra: Record<string, unknown> = {}) => {
    const id = `${actor}/notes/${name}`;
    const activity = publicNoteCreate(actor, id, { content: `<p>${name}</p>`, ...extra });
    assert.equal(
      await statusOf(
        await peer.deliver(`${rookery.origin}/inbox`, activity, {
          keyId: `${actor}#main-key`,
          send,
        }),
      ),
      202,
    );
    return await arrived(rookery, id);
  };
  const bob = await createUser(rookery, "bob");
  const auth = { headers: { authorization: `Bearer ${bob.token}` } };
  const home = async () =>
    (await (await rookery.request("/api/v1/timelines/home", auth)).json())
      .map((s: { id: string }) => s.id);
  let socket: WsClient | null = null;
  try {
    const followed = await rookery.request("/api/v1/tags/pelicans/follow", {
      method: "POST",
      ...auth,
    });
    assert.equal(followed.status, 200);
    await followed.body?.cancel();
    socket = await WsClient.open(
      rookery,
      `/api/v1/streaming?stream=public&access_token=${bob.token}`,
    );
    const plain = await deliver("plain");
    const streamed = await socket.next("update", "public");
    assert.equal(JSON.parse(streamed.payload as string).id, plain.id);
    assert.deepEqual(await home(), [], "no follow, no followed hashtag: no feed");

    const tagged = await deliver("tagged", {
      content: `<p>about <a href="${peer.origin}/tags/pelicans" rel="tag">#pelicans</a></p>`,
      tag: [{ type: "Hashtag", name: "#pelicans", href: `${peer.origin}/tags/pelicans` }],
    });
    assert.equal(
      JSON.parse((await socket.next("update", "public")).payload as string).id,
      tagged.id,
    );
    assert.deepEqual(await home(), [tagged.id], "the hashtag's follower has it at home");
  } finally {
    await socket?.close();
    await peer.close();
    await rookery.close();
  }
});

test("a followed author's note: an exclusive list of the follower holding the author keeps it from home", async () => {
  // On PGlite the fan-out statement leaves out the exclusive lists' rule for
  // an author no list holds (actors/timelines/fanout.ts, reachOf): the note
  // of one a list holds must still meet it.
  const rookery = await startInstance({ listen: true });
  const peer = await startFakePeer();
  const actor = peer.publishActor("lena", { followers: `${peer.origin}/users/lena/followers` });
  const db = rookery.rookery.ctx.database.db;
  const send = (request: Request) => rookery.request(request.url, request);
  const deliver = async (name: string) => {
    const id = `${actor}/notes/${name}`;
    const activity = publicNoteCreate(actor, id, { content: `<p>${name}</p>` });
    assert.equal(
      await statusOf(
        await peer.deliver(`${rookery.origin}/inbox`, activity, {
          keyId: `${actor}#main-key`,
          send,
        }),
      ),
      202,
    );
    return await arrived(rookery, id);
  };
  const carol = await createUser(rookery, "carol");
  const ids = async (path: string) =>
    (await ok(rookery, carol, "GET", path)).map((s: { id: string }) => s.id);
  try {
    const first = await deliver("first");
    await db.insert(follows).values({
      id: newId(),
      accountId: carol.id,
      targetAccountId: first.accountId,
    });
    const list = await ok(rookery, carol, "POST", "/api/v1/lists", {
      title: "lena",
      exclusive: true,
    });
    await ok(rookery, carol, "POST", `/api/v1/lists/${list.id}/accounts`, {
      account_ids: [first.accountId],
    });
    const listed = await deliver("listed");
    // (The list was filled with the author's earlier note when the author was added.)
    assert.deepEqual(await ids(`/api/v1/timelines/list/${list.id}`), [listed.id, first.id]);
    assert.deepEqual(await ids("/api/v1/timelines/home"), [], "the exclusive list keeps it");

    await ok(rookery, carol, "DELETE", `/api/v1/lists/${list.id}/accounts`, {
      account_ids: [first.accountId],
    });
    const unlisted = await deliver("unlisted");
    assert.deepEqual(await ids("/api/v1/timelines/home"), [unlisted.id]);
  } finally {
    await peer.close();
    await rookery.close();
  }
});
