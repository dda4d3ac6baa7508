/**
 * Interaction policies against a peer speaking GoToSocial's dialect (issue
 * 34, design §9.5): polite ReplyRequest, LikeRequest and AnnounceRequest
 * for our posts. A request within manual approval is held and answered
 * with the polite Accept (the request embedded by ids, our authorization as
 * `result`) once our user authorizes it; one the policy allows at once is
 * accepted at once; a forbidden one gets the polite Reject and stores
 * nothing; a request whose interaction already claims an approval is
 * refused. A plain reply claiming an authorization of ours that we never
 * issued for it (a forged `approvedBy`) is dropped.
 *
 * Activities of one actor are handled in the order they came, so a later
 * marker activity arriving proves an earlier one was handled (no sleeps).
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { arrived, storedStatus } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";
import {
  type Json,
  listOf,
  politeRequest,
  PUBLIC,
  startFollowerPeer,
  startPolicyPeer,
} from "../fixtures/policy_peers.ts";

test("a GoToSocial peer's polite requests: held, accepted, refused", async (t) => {
  const rookery = await startInstance();
  const gts = await startPolicyPeer(rookery, "gotosocial");
  try {
    const alice = await createUser(rookery, "alice");
    const aliceUri = `${rookery.origin}/users/alice`;
    const zork = gts.actor("zork");
    const answerTo = (requestId: string) =>
      eventually(`the answer to ${requestId}`, () =>
        Promise.resolve(
          gts.received("zork").find((a) => (a.object as Json | undefined)?.id === requestId),
        ));
    const marker = async () => {
      const note = gts.note("zork", { content: "<p>marker</p>" });
      await gts.deliverCreate("zork", note);
      await arrived(rookery, note.id as string, "the marker");
    };
    const pendingRequests = () => ok(rookery, alice, "GET", "/api/v1/interaction_requests");
    const manual = await postStatus(rookery, alice, "ask first", {
      interaction_policy: {
        can_reply: { automatic_approval: ["author"], manual_approval: ["public"] },
        can_favourite: { automatic_approval: ["author"], manual_approval: [] },
      },
    });
    const reply = (extra: Json = {}) => {
      const { "@context": _, ...note } = gts.note("zork", {
        inReplyTo: manual.uri,
        cc: [`${zork}/followers`, aliceUri],
        content: "<p>may I?</p>",
        ...extra,
      });
      return note;
    };

    await t.step("a ReplyRequest held, then the polite Accept and the authorization", async () => {
      const note = reply();
      const requestId = gts.id("zork", "reply_requests");
      await gts.deliver(
        "zork",
        politeRequest("ReplyRequest", requestId, zork, manual.uri, aliceUri, note),
      );
      const [request] = await eventually("the held request", async () => {
        const list = await pendingRequests();
        return list.length ? list : null;
      });
      assert.equal(request.type, "reply");
      assert.equal(request.reply.uri, note.id);
      assert.equal((await storedStatus(rookery, note.id as string))?.pendingApproval, true);
      await ok(rookery, alice, "POST", `/api/v1/interaction_requests/${request.id}/authorize`);
      const accept = await answerTo(requestId);
      assert.equal(accept.type, "Accept");
      assert.equal(accept.actor, aliceUri);
      assert.deepEqual(listOf(accept.to), [zork]);
      assert.equal(accept.cc, undefined, "a polite answer goes to the requester only");
      assert.deepEqual(accept.object, {
        id: requestId,
        type: "ReplyRequest",
        actor: zork,
        object: manual.uri,
        instrument: note.id,
      });
      const res = await rookery.request(accept.result as string, {
        headers: { Accept: "application/activity+json" },
      });
      const authorization: Json = await res.json();
      assert.equal(authorization.type, "ReplyAuthorization");
      assert.equal(authorization.interactingObject, note.id);
      assert.equal(authorization.interactionTarget, manual.uri);
      assert.equal((await storedStatus(rookery, note.id as string))?.pendingApproval, false);
    });

    await t.step("a forbidden LikeRequest gets the polite Reject and stores nothing", async () => {
      const requestId = gts.id("zork", "like_requests");
      const like = { id: gts.id("zork", "likes"), type: "Like", actor: zork, object: manual.uri };
      await gts.deliver(
        "zork",
        politeRequest("LikeRequest", requestId, zork, manual.uri, aliceUri, like),
      );
      const reject = await answerTo(requestId);
      assert.equal(reject.type, "Reject");
      assert.equal(reject.result, undefined);
      assert.equal((reject.object as Json).type, "LikeRequest");
      const shown = await ok(rookery, alice, "GET", `/api/v1/statuses/${manual.id}`);
      assert.equal(shown.favourites_count, 0);
    });

    await t.step("an AnnounceRequest the policy allows is accepted at once", async () => {
      const open = await postStatus(rookery, alice, "boost away");
      const requestId = gts.id("zork", "announce_requests");
      const announce = {
        id: gts.id("zork", "announces"),
        type: "Announce",
        actor: zork,
        object: open.uri,
        to: [PUBLIC],
        cc: [`${zork}/followers`, aliceUri],
      };
      await gts.deliver(
        "zork",
        politeRequest("AnnounceRequest", requestId, zork, open.uri, aliceUri, announce),
      );
      const accept = await answerTo(requestId);
      assert.equal(accept.type, "Accept");
      assert.equal((accept.object as Json).type, "AnnounceRequest");
      assert.match(accept.result as string, /\/users\/alice\/authorizations\/\d+$/);
      const shown = await ok(rookery, alice, "GET", `/api/v1/statuses/${open.id}`);
      assert.equal(shown.reblogs_count, 1);
      assert.deepEqual(await pendingRequests(), []);
    });

    await t.step("a request whose reply already claims approval is refused", async () => {
      const note = reply({ approvedBy: `${gts.peer.origin}/users/zork/authorizations/1` });
      await gts.deliver(
        "zork",
        politeRequest(
          "ReplyRequest",
          gts.id("zork", "reply_requests"),
          zork,
          manual.uri,
          aliceUri,
          note,
        ),
      );
      await marker();
      assert.equal(await storedStatus(rookery, note.id as string), undefined);
      assert.deepEqual(await pendingRequests(), []);
    });

    await t.step("a plain reply with a forged approvedBy of ours is dropped", async () => {
      const open = await postStatus(rookery, alice, "anyone may reply");
      const [issued] = await rookery.rookery.ctx.database.rows<{ authorization_uri: string }>(
        (await import("drizzle-orm")).sql`SELECT authorization_uri FROM interaction_requests
          WHERE state = 'accepted' AND type = 'reply'`,
      );
      const forged = [
        `${aliceUri}/authorizations/123456789`, // never issued
        issued.authorization_uri, // issued, for another reply
      ];
      const notes = forged.map((claim) => reply({ inReplyTo: open.uri, approvedBy: claim }));
      for (const object of notes) {
        await gts.deliver("zork", {
          id: `${object.id}/activity`,
          type: "Create",
          actor: zork,
          object,
        });
      }
      const honest = reply({ inReplyTo: open.uri });
      await gts.deliver("zork", {
        id: `${honest.id}/activity`,
        type: "Create",
        actor: zork,
        object: honest,
      });
      await arrived(rookery, honest.id as string, "the reply claiming nothing");
      for (const note of notes) {
        assert.equal(await storedStatus(rookery, note.id as string), undefined);
      }
    });
  } finally {
    await gts.close();
    await rookery.close({ destroy: true });
  }
});

test("our reply and Like to a GoToSocial post that wants approval: asked, then answered later", async (t) => {
  const rookery = await startInstance();
  const gts = await startPolicyPeer(rookery, "gotosocial");
  const alice = await createUser(rookery, "alice");
  const fans = await startFollowerPeer(rookery, alice);
  try {
    const aliceUri = `${rookery.origin}/users/alice`;
    const zork = gts.actor("zork");
    const manualEverything = {
      canReply: { automaticApproval: [zork], manualApproval: [PUBLIC] },
      canLike: { automaticApproval: [zork], manualApproval: [PUBLIC] },
      canAnnounce: { automaticApproval: [zork], manualApproval: [PUBLIC] },
    };
    const post = gts.note("zork", {
      content: "<p>ask me</p>",
      interactionPolicy: manualEverything,
    });
    await gts.deliverCreate("zork", post);
    const stored = await arrived(rookery, post.id as string, "zork's post");
    const requestsAt = (type: string) => gts.received("zork").filter((a) => a.type === type);

    await t.step(
      "the reply waits for the ReplyRequest's Accept, then goes out with it",
      async () => {
        const reply = await postStatus(rookery, alice, "may I?", { in_reply_to_id: stored.id });
        const [request] = await eventually(
          "the ReplyRequest",
          () =>
            Promise.resolve(requestsAt("ReplyRequest").length ? requestsAt("ReplyRequest") : null),
        );
        assert.equal(request.actor, aliceUri);
        assert.equal(request.object, post.id);
        assert.deepEqual(listOf(request.to), [zork]);
        const instrument = request.instrument as Json;
        assert.equal(instrument.id, reply.uri);
        assert.equal(instrument.inReplyTo, post.id);
        assert.equal(instrument.approvedBy, undefined);
        assert.equal((await storedStatus(rookery, reply.uri))?.pendingApproval, true);
        assert.equal(
          fans.received("fan").filter((a) => a.type === "Create").length,
          0,
        );

        // Answers by someone else, or with a proof on another server, change nothing.
        const authorization = `${gts.peer.origin}/users/zork/authorizations/1`;
        const accept = (actor: string, result: string) => ({
          id: gts.id(actor === zork ? "zork" : "mallory", "accepts"),
          type: "Accept",
          actor,
          object: {
            id: request.id,
            type: "ReplyRequest",
            actor: aliceUri,
            object: post.id,
            instrument: reply.uri,
          },
          result,
          to: aliceUri,
        });
        gts.actor("mallory");
        await gts.deliver("mallory", accept(gts.peer.actor("mallory"), authorization));
        await gts.deliver("zork", accept(zork, "https://elsewhere.example/authorizations/1"));
        await gts.deliver("zork", accept(zork, authorization));
        const create = await eventually(
          "the Create at alice's follower",
          () => Promise.resolve(fans.received("fan").find((a) => a.type === "Create")),
        );
        const note = create.object as Json;
        assert.equal(note.id, reply.uri);
        assert.equal(note.approvedBy, authorization);
        assert.equal(note.replyAuthorization, authorization);
        const row = await storedStatus(rookery, reply.uri);
        assert.equal(row?.pendingApproval, false);
        assert.equal(row?.approvedByUri, authorization);
      },
    );

    await t.step("a held reply deleted: its Delete goes to the post's author only", async () => {
      const reply = await postStatus(rookery, alice, "never mind", { in_reply_to_id: stored.id });
      await eventually("its ReplyRequest", () =>
        Promise.resolve(
          requestsAt("ReplyRequest").find((r) => (r.instrument as Json).id === reply.uri),
        ));
      await ok(rookery, alice, "DELETE", `/api/v1/statuses/${reply.id}`);
      const del = await eventually("the Delete at zork's inbox", () =>
        Promise.resolve(
          requestsAt("Delete").find((d) => ((d.object as Json)?.id ?? d.object) === reply.uri),
        ));
      assert.deepEqual(listOf(del.to), [zork]);
      assert.equal(del.cc, undefined);
      // The followers' server gets whatever alice sends next, and nothing of the held reply.
      await postStatus(rookery, alice, "a marker for fans");
      await eventually("the marker at the follower", () =>
        Promise.resolve(
          fans.received("fan").find((a) =>
            a.type === "Create" && String((a.object as Json).content).includes("a marker for fans")
          ),
        ));
      assert.equal(fans.received("fan").filter((a) => a.type === "Delete").length, 0);
    });

    await t.step("the boost waits for the AnnounceRequest's Accept, then names it", async () => {
      await ok(rookery, alice, "POST", `/api/v1/statuses/${stored.id}/reblog`);
      const [request] = await eventually("the AnnounceRequest", () =>
        Promise.resolve(
          requestsAt("AnnounceRequest").length ? requestsAt("AnnounceRequest") : null,
        ));
      const instrument = request.instrument as Json;
      assert.equal(instrument.type, "Announce");
      assert.equal(instrument.object, post.id);
      assert.equal(fans.received("fan").filter((a) => a.type === "Announce").length, 0);
      const authorization = `${gts.peer.origin}/users/zork/authorizations/2`;
      await gts.deliver("zork", {
        id: gts.id("zork", "accepts"),
        type: "Accept",
        actor: zork,
        object: request.id,
        result: authorization,
        to: aliceUri,
      });
      const announce = await eventually(
        "the Announce at alice's follower",
        () => Promise.resolve(fans.received("fan").find((a) => a.type === "Announce")),
      );
      assert.equal(announce.id, instrument.id);
      assert.equal(announce.approvedBy, authorization);
      assert.equal(announce.announceAuthorization, authorization);
    });

    await t.step("the Like waits for the LikeRequest's answer; a Reject discards it", async () => {
      await ok(rookery, alice, "POST", `/api/v1/statuses/${stored.id}/favourite`);
      const [request] = await eventually(
        "the LikeRequest",
        () => Promise.resolve(requestsAt("LikeRequest").length ? requestsAt("LikeRequest") : null),
      );
      assert.equal((request.instrument as Json).type, "Like");
      assert.equal(requestsAt("Like").length, 0, "no plain Like before approval");
      await gts.deliver("zork", {
        id: gts.id("zork", "rejects"),
        type: "Reject",
        actor: zork,
        object: request.id,
        to: aliceUri,
      });
      await eventually(
        "the favourite gone",
        async () => !(await ok(rookery, alice, "GET", `/api/v1/statuses/${stored.id}`)).favourited,
      );
      assert.equal(requestsAt("Undo").length, 0, "nothing to take back");
    });
  } finally {
    await gts.close();
    await fans.close();
    await rookery.close({ destroy: true });
  }
});

test("a third server's reply to a GoToSocial post that wants approval is stored only with a valid proof", async () => {
  const rookery = await startInstance();
  const gts = await startPolicyPeer(rookery, "gotosocial");
  const other = await startPolicyPeer(rookery, "gotosocial");
  try {
    const zork = gts.actor("zork");
    const xavier = other.actor("xavier");
    const deliverNote = async (note: Json) => {
      await gts.deliverCreate("zork", note);
      return await arrived(rookery, note.id as string, "zork's post");
    };
    const guarded = await deliverNote(gts.note("zork", {
      interactionPolicy: { canReply: { automaticApproval: [zork], manualApproval: [PUBLIC] } },
    }));
    const open = await deliverNote(gts.note("zork", {}));
    const authorization = (name: string, body: Json) => {
      const id = `${gts.peer.origin}/users/zork/authorizations/${name}`;
      gts.peer.serve(new URL(id).pathname, {
        "@context": ["https://www.w3.org/ns/activitystreams", "https://gotosocial.org/ns"],
        id,
        ...body,
      });
      return id;
    };
    const replies: { note: Json; stored: boolean }[] = [];
    const reply = (
      parent: string,
      claim: ((id: string) => string | null) | null,
      stored: boolean,
    ) => {
      const note = other.note("xavier", { inReplyTo: parent, cc: [`${xavier}/followers`, zork] });
      if (claim) {
        const iri = claim(note.id as string);
        if (iri) note.approvedBy = iri;
      }
      replies.push({ note, stored });
    };
    const valid = (kind: string, reply: string, extra: Json = {}) => ({
      type: "ReplyAuthorization",
      attributedTo: zork,
      interactingObject: reply,
      interactionTarget: guarded.uri,
      ...extra,
      ...(kind === "like" ? { type: "LikeAuthorization" } : {}),
    });
    reply(guarded.uri, () => `${other.peer.origin}/users/xavier/authorizations/1`, false);
    reply(guarded.uri, () => `${gts.peer.origin}/users/zork/authorizations/missing`, false);
    reply(
      guarded.uri,
      () => authorization("other", valid("reply", `${xavier}/statuses/elsewhere`)),
      false,
    );
    reply(guarded.uri, (id) => authorization("like", valid("like", id)), false);
    reply(
      guarded.uri,
      (id) => authorization("someone", valid("reply", id, { attributedTo: xavier })),
      false,
    );
    reply(guarded.uri, null, false);
    reply(guarded.uri, (id) => authorization("good", valid("reply", id)), true);
    reply(open.uri, null, true);
    for (const { note } of replies) {
      await other.deliverCreate("xavier", note);
    }
    await arrived(rookery, replies.at(-1)!.note.id as string, "the last reply");
    for (const { note, stored } of replies) {
      const row = await storedStatus(rookery, note.id as string);
      assert.equal(row != null, stored, `${note.approvedBy ?? "no claim"}: stored ${stored}`);
    }
    const good = await storedStatus(rookery, replies[6].note.id as string);
    assert.equal(good?.approvedByUri, replies[6].note.approvedBy);
    assert.equal(
      other.peer.hits("/users/xavier/authorizations/1"),
      0,
      "a claim on the wrong host is not fetched",
    );
  } finally {
    await gts.close();
    await other.close();
    await rookery.close({ destroy: true });
  }
});
