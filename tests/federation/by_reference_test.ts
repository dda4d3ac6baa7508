/**
 * Activities by reference (issue 19, item 3): `Undo`, `Accept`, `Reject`
 * and `Delete` whose object is only a URI, as many servers send them, from
 * a hand-written peer that signs like Mastodon (tests/fixtures/fake_peer.ts):
 *
 * - Undo of a follow request never accepted removes the request (a locked
 *   account's GET /api/v1/follow_requests is empty again);
 * - Undo of a Like, an Announce and a Block by their ids;
 * - Accept and Reject of our Follow by its id, and by the pair of accounts
 *   when the stored row has no id (rows older than stored ids);
 * - Delete of a status and of the actor by their ids (the actor is asked
 *   once whether it is gone, as Mastodon asks);
 * - nothing of it is fetched (the peer counts the requests for each id),
 *   and nothing is logged at error level (Fedify's "Failed to fetch" with a
 *   stack trace, twice per Undo, before).
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { accounts, followRequests } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { callJson, ok, postStatus, relationship } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { captureLogs } from "../fixtures/log_capture.ts";
import { resolveRemoteAccount } from "../../federation/remote/accounts.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

type Json = Record<string, any>;

test("activities by reference: Undo, Accept, Reject and Delete naming only a URI", async (t) => {
  const logs = await captureLogs();
  // Listening, so a fetch of our own objects would show here.
  const ownGets: string[] = [];
  const rookery = await startInstance({
    listen: true,
    onRequest: (request) => {
      if (request.method === "GET" && new URL(request.url).pathname.startsWith("/users/")) {
        ownGets.push(request.url);
      }
    },
  });
  const peer = await startFakePeer();
  const send = (request: Request) => rookery.request(request.url, request);
  const fan = peer.publishActor("fan");
  const db = rookery.rookery.ctx.database.db;
  let serial = 0;
  /** An id on the peer nobody serves: the peer counts any fetch of it. */
  const idOf = (actor: string, kind: string) => `${actor}/${kind}/${++serial}`;
  const deliver = async (actor: string, activity: Json, inbox = `${rookery.origin}/inbox`) => {
    const res = await peer.deliver(inbox, { "@context": AS, actor, ...activity }, {
      keyId: `${actor}#main-key`,
      send,
    });
    assert.equal(await statusOf(res), 202);
  };
  const pathOf = (uri: string) => new URL(uri).pathname;
  const bob = await createUser(rookery, "bob", { account: { locked: true } });
  const alice = await createUser(rookery, "alice");
  try {
    await t.step("Undo of a follow request by its id removes the request", async () => {
      const followId = idOf(fan, "follows");
      await deliver(fan, { id: followId, type: "Follow", object: `${rookery.origin}/users/bob` });
      await eventually(
        "the follow request",
        async () => (await ok(rookery, bob, "GET", "/api/v1/follow_requests")).length === 1,
      );
      await deliver(fan, { id: idOf(fan, "undos"), type: "Undo", object: followId });
      await eventually(
        "no follow request",
        async () => (await ok(rookery, bob, "GET", "/api/v1/follow_requests")).length === 0,
      );
      assert.equal(peer.hits(pathOf(followId)), 0, "the Follow was not fetched");
    });

    const post = await postStatus(rookery, alice, "something to like");
    await t.step("Undo of a Like and of an Announce by their ids", async () => {
      const likeId = idOf(fan, "likes");
      const announceId = idOf(fan, "announces");
      await deliver(fan, { id: likeId, type: "Like", object: post.uri });
      await deliver(fan, {
        id: announceId,
        type: "Announce",
        object: post.uri,
        to: [PUBLIC],
        published: new Date().toISOString(),
      });
      const counts = async () => (await ok(rookery, alice, "GET", `/api/v1/statuses/${post.id}`));
      await eventually("liked and boosted", async () => {
        const s = await counts();
        return s.favourites_count === 1 && s.reblogs_count === 1;
      });
      await deliver(fan, { id: idOf(fan, "undos"), type: "Undo", object: likeId });
      await deliver(fan, { id: idOf(fan, "undos"), type: "Undo", object: announceId });
      await eventually("neither liked nor boosted", async () => {
        const s = await counts();
        return s.favourites_count === 0 && s.reblogs_count === 0;
      });
      assert.equal(peer.hits(pathOf(likeId)) + peer.hits(pathOf(announceId)), 0);
    });

    await t.step("Undo of a Block by its id", async () => {
      const blockId = idOf(fan, "blocks");
      await deliver(fan, { id: blockId, type: "Block", object: `${rookery.origin}/users/alice` });
      const fanId = (await resolveRemoteAccount(rookery.rookery.ctx, fan))!.id;
      const blockedBy = async () => (await relationship(rookery, alice, fanId)).blocked_by;
      await eventually("blocked", blockedBy);
      await deliver(fan, { id: idOf(fan, "undos"), type: "Undo", object: blockId });
      await eventually("unblocked", async () => !await blockedBy());
      assert.equal(peer.hits(pathOf(blockId)), 0);
    });

    // Alice's Follows reach the peer's actors' inboxes: the peer answers them by id.
    const follows = new Map<string, Json>();
    const followedActor = (name: string) => {
      const actor = peer.publishActor(name);
      peer.route(`/users/${name}/inbox`, async (request) => {
        const body = await request.json();
        if (body.type === "Follow") follows.set(name, body);
        return new Response(null, { status: 202 });
      });
      return actor;
    };
    const requestFollow = async (name: string) => {
      const actor = followedActor(name);
      const account = await resolveRemoteAccount(rookery.rookery.ctx, actor);
      assert.ok(account);
      const res = await callJson(rookery, alice, "POST", `/api/v1/accounts/${account.id}/follow`);
      assert.equal(res.status, 200);
      const follow = await eventually(
        `alice's Follow of ${name}`,
        () => Promise.resolve(follows.get(name)),
      );
      return { actor, id: account.id, followId: follow.id as string };
    };

    await t.step("Accept of our Follow by its id", async () => {
      const idol = await requestFollow("idol");
      assert.equal((await relationship(rookery, alice, idol.id)).requested, true);
      await deliver(idol.actor, {
        id: idOf(idol.actor, "accepts"),
        type: "Accept",
        object: idol.followId,
      });
      await eventually(
        "following",
        async () => (await relationship(rookery, alice, idol.id)).following,
      );
    });

    await t.step("Reject of our Follow by its id", async () => {
      const aloof = await requestFollow("aloof");
      await deliver(aloof.actor, {
        id: idOf(aloof.actor, "rejects"),
        type: "Reject",
        object: aloof.followId,
      });
      await eventually("no longer requested", async () => {
        const r = await relationship(rookery, alice, aloof.id);
        return !r.requested && !r.following;
      });
    });

    await t.step("Accept by the pair when the request has no stored id", async () => {
      const legacy = await requestFollow("legacy");
      await db.update(followRequests).set({ uri: null })
        .where(and(eq(followRequests.targetAccountId, legacy.id)));
      await deliver(legacy.actor, {
        id: idOf(legacy.actor, "accepts"),
        type: "Accept",
        object: legacy.followId,
      });
      await eventually(
        "following",
        async () => (await relationship(rookery, alice, legacy.id)).following,
      );
    });

    await t.step("Delete of a status and of the actor by their ids", async () => {
      const noteId = idOf(fan, "notes");
      await deliver(fan, {
        id: `${noteId}/activity`,
        type: "Create",
        to: [PUBLIC],
        object: {
          id: noteId,
          type: "Note",
          attributedTo: fan,
          to: [PUBLIC],
          content: "soon gone",
          published: new Date().toISOString(),
        },
      });
      await eventually("the note", () => storedStatus(rookery, noteId));
      await deliver(fan, { id: `${noteId}#delete`, type: "Delete", to: [PUBLIC], object: noteId });
      await eventually(
        "the note deleted",
        async () => (await storedStatus(rookery, noteId))?.deletedAt,
      );
      assert.equal(peer.hits(pathOf(noteId)), 0, "the Note was not fetched");
      // Gone on its server (a Delete of an actor that still answers purges nothing).
      peer.route(pathOf(fan), () => new Response(null, { status: 410 }));
      const actorHits = peer.hits(pathOf(fan));
      await deliver(fan, { id: `${fan}#delete`, type: "Delete", to: [PUBLIC], object: fan });
      await eventually("the actor deleted", async () => {
        const [row] = await db.select().from(accounts).where(eq(accounts.uri, fan));
        return row?.deletedAt;
      });
      // Asked once, to see that it is gone; the Delete itself was not fetched.
      assert.equal(peer.hits(pathOf(fan)), actorHits + 1, "the actor was asked once");
    });

    await t.step("unknown and local ids are ignored quietly, never fetched", async () => {
      const idol = `${peer.origin}/users/idol`;
      const ownStatus = await postStatus(rookery, alice, "ours");
      const gets = ownGets.length;
      const unknown = idOf(idol, "unknown");
      for (const object of [ownStatus.uri, `${rookery.origin}/users/alice#follows/404`, unknown]) {
        await deliver(idol, { id: idOf(idol, "undos"), type: "Undo", object });
        await deliver(idol, { id: idOf(idol, "deletes"), type: "Delete", object });
        await deliver(idol, { id: idOf(idol, "accepts"), type: "Accept", object });
      }
      // A later activity of the same actor is handled after them (one queue per actor).
      const markerId = idOf(idol, "notes");
      await deliver(idol, {
        id: `${markerId}/activity`,
        type: "Create",
        to: [PUBLIC],
        object: {
          id: markerId,
          type: "Note",
          attributedTo: idol,
          to: [PUBLIC],
          content: "marker",
          published: new Date().toISOString(),
        },
      });
      await eventually("the marker", () => storedStatus(rookery, markerId));
      assert.deepEqual(ownGets.slice(gets), [], "none of our objects fetched");
      assert.equal(peer.hits(pathOf(unknown)), 0, "the unknown id was not fetched");
      const mine = await ok(rookery, alice, "GET", `/api/v1/statuses/${ownStatus.id}`);
      assert.equal(mine.content, "<p>ours</p>");
    });

    await t.step("nothing of it was logged at error level", () => {
      const errors = logs.errors().map((r) => `${r.category.join(".")}: ${logs.text(r)}`);
      assert.deepEqual(errors, []);
    });
  } finally {
    await peer.close();
    await rookery.close({ destroy: true });
    await logs.stop();
  }
});
