/**
 * Interaction policies against a policy-unaware peer speaking Mastodon's
 * dialect (issue 34, design §9.6): its plain Create reply to a post whose
 * replies need approval is held; when our user authorizes it, the impolite
 * Accept (object = the reply, target = the post, result = our
 * authorization) reaches the replier and, broadcast cc Public and
 * followers, our user's followers on another server; the authorization is
 * served. A plain Like is held, rejected with an impolite Reject to its
 * author only, and the same Like delivered again is dropped.
 *
 * Activities of one actor are handled in the order they came, so a later
 * marker activity arriving proves an earlier one was handled (no sleeps).
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { ok } from "../fixtures/api.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { arrived, storedStatus } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";
import {
  type Json,
  listOf,
  PUBLIC,
  startFollowerPeer,
  startPolicyPeer,
} from "../fixtures/policy_peers.ts";

test("a Mastodon peer's reply and Like held, then answered in the impolite form", async (t) => {
  const rookery = await startInstance();
  const mastodon = await startPolicyPeer(rookery, "mastodon");
  const alice = await createUser(rookery, "alice");
  const fans = await startFollowerPeer(rookery, alice);
  try {
    const aliceUri = `${rookery.origin}/users/alice`;
    const mel = mastodon.actor("mel");
    /** A plain public post by mel, stored once handled: mel's earlier activities were too. */
    const marker = async () => {
      const note = mastodon.note("mel", { content: "<p>marker</p>" });
      await mastodon.deliverCreate("mel", note, { to: [PUBLIC] });
      await arrived(rookery, note.id as string, "the marker");
    };

    await t.step("a plain reply held, authorized, and the Accept broadcast", async () => {
      const post = await postStatus(rookery, alice, "ask first", {
        interaction_policy: {
          can_reply: { automatic_approval: ["author"], manual_approval: ["public"] },
        },
      });
      const note = mastodon.note("mel", {
        inReplyTo: post.uri,
        cc: [`${mel}/followers`, aliceUri],
        tag: [{ type: "Mention", href: aliceUri, name: `@alice@${rookery.domain}` }],
        content: "<p>@alice may I?</p>",
      });
      await mastodon.deliverCreate("mel", note, { to: [PUBLIC], cc: note.cc });
      const [request] = await eventually("the held reply's request", async () => {
        const list = await ok(rookery, alice, "GET", "/api/v1/interaction_requests");
        return list.length ? list : null;
      });
      assert.equal(request.type, "reply");
      assert.equal(request.reply.uri, note.id);
      assert.equal(
        (await ok(rookery, alice, "GET", `/api/v1/statuses/${post.id}`)).replies_count,
        0,
      );
      assert.deepEqual(mastodon.received("mel"), [], "nothing answered before the decision");

      await ok(rookery, alice, "POST", `/api/v1/interaction_requests/${request.id}/authorize`);
      const accept = await eventually(
        "the Accept at mel's inbox",
        () => Promise.resolve(mastodon.received("mel").find((a) => a.type === "Accept")),
      );
      assert.equal(accept.actor, aliceUri);
      assert.equal(accept.object, note.id, "impolite: the object is the reply itself");
      assert.equal(accept.target, post.uri);
      assert.deepEqual(listOf(accept.to), [mel]);
      assert.deepEqual(
        listOf(accept.cc).map((v) => v === "as:Public" ? PUBLIC : v).sort(),
        [PUBLIC, `${aliceUri}/followers`].sort(),
      );
      const result = accept.result as string;
      assert.match(result, new RegExp(`^${aliceUri}/authorizations/\\d+$`));
      const broadcast = await eventually(
        "the Accept at the follower's server",
        () => Promise.resolve(fans.received("fan").find((a) => a.type === "Accept" && a.target)),
      );
      assert.equal(broadcast.result, result);

      const res = await rookery.request(result, {
        headers: { Accept: "application/activity+json" },
      });
      assert.equal(res.status, 200);
      const authorization: Json = await res.json();
      assert.equal(authorization.type, "ReplyAuthorization");
      assert.equal(authorization.attributedTo, aliceUri);
      assert.equal(authorization.interactingObject, note.id);
      assert.equal(authorization.interactionTarget, post.uri);
      assert.equal(
        (await ok(rookery, alice, "GET", `/api/v1/statuses/${post.id}`)).replies_count,
        1,
      );
    });

    await t.step("a rejected reply, and replies to it, are not taken again", async () => {
      const post = await postStatus(rookery, alice, "ask first, again", {
        interaction_policy: {
          can_reply: { automatic_approval: ["author"], manual_approval: ["public"] },
        },
      });
      const create = (note: Json) => mastodon.deliverCreate("mel", note, { to: [PUBLIC] });
      const rejected = mastodon.note("mel", { inReplyTo: post.uri, content: "<p>hm</p>" });
      await create(rejected);
      const [request] = await eventually("the held reply's request", async () => {
        const list = await ok(rookery, alice, "GET", "/api/v1/interaction_requests");
        return list.length ? list : null;
      });
      await ok(rookery, alice, "POST", `/api/v1/interaction_requests/${request.id}/reject`);
      await eventually("the Reject at mel's inbox", () =>
        Promise.resolve(
          mastodon.received("mel").find((a) => a.type === "Reject" && a.object === rejected.id),
        ));
      const under = mastodon.note("mel", { inReplyTo: rejected.id, content: "<p>and?</p>" });
      await create(rejected);
      await create(under);
      await marker();
      assert.equal(await storedStatus(rookery, under.id as string), undefined);
      assert.deepEqual(await ok(rookery, alice, "GET", "/api/v1/interaction_requests"), []);
    });

    await t.step(
      "a plain Like held, rejected to its author only, and not taken again",
      async () => {
        const post = await postStatus(rookery, alice, "likes need approval", {
          interaction_policy: {
            can_favourite: { automatic_approval: ["author"], manual_approval: ["public"] },
          },
        });
        const like = {
          id: mastodon.id("mel", "likes"),
          type: "Like",
          actor: mel,
          object: post.uri,
        };
        await mastodon.deliver("mel", like);
        const [request] = await eventually("the held Like's request", async () => {
          const list = await ok(rookery, alice, "GET", "/api/v1/interaction_requests");
          return list.length ? list : null;
        });
        assert.equal(request.type, "favourite");
        await ok(rookery, alice, "POST", `/api/v1/interaction_requests/${request.id}/reject`);
        const reject = await eventually(
          "the Reject at mel's inbox",
          () =>
            Promise.resolve(
              mastodon.received("mel").find((a) => a.type === "Reject" && a.object === like.id),
            ),
        );
        assert.equal(reject.object, like.id);
        assert.equal(reject.target, post.uri);
        assert.equal(reject.result, undefined);
        assert.equal(reject.cc, undefined, "a Like's answer is not broadcast");

        await mastodon.deliver("mel", like);
        await marker();
        assert.deepEqual(await ok(rookery, alice, "GET", "/api/v1/interaction_requests"), []);
        assert.equal(
          (await ok(rookery, alice, "GET", `/api/v1/statuses/${post.id}`)).favourites_count,
          0,
        );
        assert.equal(fans.received("fan").filter((a) => a.object === like.id).length, 0);
      },
    );

    await t.step("a forbidden plain reply and Like refused with a Reject, once", async () => {
      const post = await postStatus(rookery, alice, "nobody but me", {
        interaction_policy: {
          can_reply: { automatic_approval: ["author"], manual_approval: [] },
          can_favourite: { automatic_approval: ["author"], manual_approval: [] },
        },
      });
      const reply = mastodon.note("mel", { inReplyTo: post.uri, content: "<p>me too</p>" });
      const create = mastodon.createOf("mel", reply, { to: [PUBLIC] });
      const like = { id: mastodon.id("mel", "likes"), type: "Like", actor: mel, object: post.uri };
      await mastodon.deliver("mel", create);
      await mastodon.deliver("mel", like);
      const rejects = (id: unknown) =>
        mastodon.received("mel").filter((a) => a.type === "Reject" && a.object === id);
      const [replyReject] = await eventually(
        "the reply's Reject",
        () => Promise.resolve(rejects(reply.id).length ? rejects(reply.id) : null),
      );
      assert.equal(replyReject.actor, aliceUri);
      assert.equal(replyReject.target, post.uri);
      assert.equal(replyReject.result, undefined);
      const [likeReject] = await eventually(
        "the Like's Reject",
        () => Promise.resolve(rejects(like.id).length ? rejects(like.id) : null),
      );
      assert.equal(likeReject.target, post.uri);

      await mastodon.deliver("mel", create);
      await mastodon.deliver("mel", like);
      await marker();
      assert.equal(rejects(reply.id).length, 1, "a re-delivered reply is dropped");
      assert.equal(rejects(like.id).length, 1, "a re-delivered Like is dropped");
      assert.equal(await storedStatus(rookery, reply.id as string), undefined);
      const status = await ok(rookery, alice, "GET", `/api/v1/statuses/${post.id}`);
      assert.equal(status.favourites_count, 0);
      assert.equal(status.replies_count, 0);
      assert.deepEqual(await ok(rookery, alice, "GET", "/api/v1/interaction_requests"), []);
    });
  } finally {
    await mastodon.close();
    await fans.close();
    await rookery.close({ destroy: true });
  }
});
