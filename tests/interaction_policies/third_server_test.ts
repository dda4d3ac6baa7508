/**
 * Interaction policies between two other servers (issue 34, design §5.4,
 * §5.5): GoToSocial's policy spelling before 0.20 (`always`,
 * `approvalRequired`) is read and enforced; a third server's reply proven
 * by the post author's Accept (GoToSocial 0.17–0.18's proof) is stored, one
 * whose Accept names another reply is not.
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
import { type Json, PUBLIC, startPolicyPeer } from "../fixtures/policy_peers.ts";

test("GoToSocial's older policy spelling and Accept proofs, between two other servers", async (t) => {
  const rookery = await startInstance();
  const gts = await startPolicyPeer(rookery, "gotosocial");
  const other = await startPolicyPeer(rookery, "gotosocial");
  try {
    const alice = await createUser(rookery, "alice");
    const zork = gts.actor("zork");
    const xavier = other.actor("xavier");
    const deliverNote = async (note: Json) => {
      const { "@context": _, ...object } = note;
      await gts.deliver("zork", { id: `${note.id}/activity`, type: "Create", actor: zork, object });
      return await arrived(rookery, note.id as string, "zork's post");
    };
    const deliverReply = async (note: Json) => {
      const { "@context": _, ...object } = note;
      await other.deliver("xavier", {
        id: `${note.id}/activity`,
        type: "Create",
        actor: xavier,
        object,
      });
    };
    /** A plain post by xavier, stored once handled: xavier's earlier activities were too. */
    const marker = async () => {
      const note = other.note("xavier", { content: "<p>marker</p>" });
      await deliverReply(note);
      await arrived(rookery, note.id as string, "the marker");
    };
    const legacy = await deliverNote(gts.note("zork", {
      interactionPolicy: {
        canReply: { always: [zork], approvalRequired: [PUBLIC] },
        canLike: { always: [PUBLIC], approvalRequired: [] },
      },
    }));

    await t.step("always/approvalRequired are read and enforced", async () => {
      assert.deepEqual(legacy.interactionPolicy?.can_reply?.manual, ["public"]);
      assert.ok(legacy.interactionPolicy?.can_reply?.automatic.includes("author"));
      assert.deepEqual(legacy.interactionPolicy?.can_favourite?.automatic, ["public"]);
      const reply = await postStatus(rookery, alice, "may I?", { in_reply_to_id: legacy.id });
      assert.equal((await storedStatus(rookery, reply.uri))?.pendingApproval, true);
      const unproven = other.note("xavier", { inReplyTo: legacy.uri });
      await deliverReply(unproven);
      await marker();
      assert.equal(await storedStatus(rookery, unproven.id as string), undefined);
    });

    await t.step("an Accept by the post's author proves a reply (GoToSocial ≤ 0.18)", async () => {
      const accept = (name: string, object: string) => {
        const id = `${gts.peer.origin}/users/zork/accepts/${name}`;
        gts.peer.serve(new URL(id).pathname, {
          "@context": ["https://www.w3.org/ns/activitystreams", "https://gotosocial.org/ns"],
          id,
          type: "Accept",
          actor: zork,
          object,
          target: legacy.uri,
        });
        return id;
      };
      const proven = other.note("xavier", { inReplyTo: legacy.uri });
      proven.approvedBy = accept("good", proven.id as string);
      const wrong = other.note("xavier", { inReplyTo: legacy.uri });
      wrong.approvedBy = accept("wrong", `${xavier}/statuses/elsewhere`);
      await deliverReply(wrong);
      await deliverReply(proven);
      const stored = await arrived(rookery, proven.id as string, "the proven reply");
      assert.equal(stored.approvedByUri, proven.approvedBy);
      assert.equal(await storedStatus(rookery, wrong.id as string), undefined);
      const context = await ok(rookery, alice, "GET", `/api/v1/statuses/${legacy.id}/context`);
      const uris = context.descendants.map((s: Json) => s.uri);
      assert.ok(uris.includes(proven.id), "the proven reply is in the thread");
    });
  } finally {
    await gts.close();
    await other.close();
    await rookery.close({ destroy: true });
  }
});
