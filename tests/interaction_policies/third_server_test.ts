/**
 * Interaction policies between two other servers (issue 34, design §5.4,
 * §5.5): GoToSocial's policy spelling before 0.20 (`always`,
 * `approvalRequired`) is read and enforced; a third server's reply proven
 * by the post author's Accept (GoToSocial 0.17–0.18's proof) is stored, one
 * whose Accept names another reply is not. When the fetch budget refuses
 * the proof, the reply is held and the status_links job checks it; a reply
 * whose parent arrives later is linked only with a valid proof; a third
 * server's boost needs its proof too (held and checked later over budget);
 * a broadcast Accept by the post's author brings a reply we lacked. A
 * proven reply or boost is committed with its approval: the row as the
 * transaction that stores or links it commits (a deferred trigger reads it
 * then) already names the proof.
 *
 * Activities of one actor are handled in the order they came, so a later
 * marker activity arriving proves an earlier one was handled (no sleeps).
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { arrived, storedStatus } from "../fixtures/federation.ts";
import { eventually } from "../fixtures/wait.ts";
import { type Json, PUBLIC, startPolicyPeer } from "../fixtures/policy_peers.ts";

/**
 * Records every status as the transaction that inserts it, or links it to
 * its parent, commits (a deferred constraint trigger runs at COMMIT and
 * reads the row as others will first see it), and returns a reader of the
 * approval it was first committed with as a reply or a boost.
 */
async function approvalsAtCommit(on: TestInstance) {
  const { rows } = on.rookery.ctx.database;
  await rows(sql`CREATE TABLE test_committed (n serial, uri text, approved_by_uri text)`);
  await rows(sql`CREATE FUNCTION test_log_committed() RETURNS trigger LANGUAGE plpgsql
    AS $$ BEGIN INSERT INTO test_committed (uri, approved_by_uri)
      SELECT uri, approved_by_uri FROM statuses WHERE id = NEW.id
        AND (in_reply_to_id IS NOT NULL OR reblog_of_id IS NOT NULL);
      RETURN NULL; END $$`);
  await rows(sql`CREATE CONSTRAINT TRIGGER test_log_committed
    AFTER INSERT OR UPDATE OF in_reply_to_id ON statuses
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_log_committed()`);
  return async (uri: string) => {
    const [row] = await rows<{ approved_by_uri: string | null }>(
      sql`SELECT approved_by_uri FROM test_committed WHERE uri = ${uri} ORDER BY n LIMIT 1`,
    );
    return row?.approved_by_uri;
  };
}

test("approvals between two other servers: older spellings, Accept proofs, later checks, boosts", async (t) => {
  const rookery = await startInstance();
  const gts = await startPolicyPeer(rookery, "gotosocial");
  const other = await startPolicyPeer(rookery, "gotosocial");
  const budget = rookery.rookery.ctx.config.fetchBudget as { count: number };
  const fullBudget = budget.count;
  const committedApproval = await approvalsAtCommit(rookery);
  try {
    const alice = await createUser(rookery, "alice");
    const zork = gts.actor("zork");
    const xavier = other.actor("xavier");
    const deliverNote = async (note: Json) => {
      await gts.deliverCreate("zork", note);
      return await arrived(rookery, note.id as string, "zork's post");
    };
    const deliverReply = (note: Json) => other.deliverCreate("xavier", note);
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
      assert.equal(await committedApproval(proven.id as string), proven.approvedBy);
      assert.equal(await storedStatus(rookery, wrong.id as string), undefined);
      const context = await ok(rookery, alice, "GET", `/api/v1/statuses/${legacy.id}/context`);
      const uris = context.descendants.map((s: Json) => s.uri);
      assert.ok(uris.includes(proven.id), "the proven reply is in the thread");
    });
    const guardedPolicy = {
      canReply: { automaticApproval: [zork], manualApproval: [PUBLIC] },
      canAnnounce: { automaticApproval: [zork], manualApproval: [PUBLIC] },
    };
    const guarded = await deliverNote(gts.note("zork", { interactionPolicy: guardedPolicy }));
    let serial = 0;
    /** An authorization by zork of `kind` for `interacting` with `target`, served by zork's server. */
    const authorization = (type: string, interacting: string, target: string) => {
      const id = `${gts.peer.origin}/users/zork/authorizations/later-${++serial}`;
      gts.peer.serve(new URL(id).pathname, {
        "@context": ["https://www.w3.org/ns/activitystreams", "https://gotosocial.org/ns"],
        id,
        type,
        attributedTo: zork,
        interactingObject: interacting,
        interactionTarget: target,
      });
      return id;
    };
    const create = (note: Json, byReference = false) =>
      other.deliverCreate("xavier", note, byReference ? { object: note.id } : {});
    // xavier known before the budget is cut (his account is fetched once).
    const hello = other.note("xavier", { content: "<p>hello</p>" });
    await create(hello);

    await t.step("over budget, the proof is checked by the job", async () => {
      budget.count = 1; // the Create's object (by reference) takes it: the proof is not fetched
      const proven = other.note("xavier", { inReplyTo: guarded.uri });
      proven.approvedBy = authorization("ReplyAuthorization", proven.id as string, guarded.uri);
      const forged = other.note("xavier", { inReplyTo: guarded.uri });
      forged.approvedBy = authorization("ReplyAuthorization", `${xavier}/elsewhere`, guarded.uri);
      await create(proven, true);
      await create(forged, true);
      const stood = await eventually("the proven reply verified", async () => {
        const row = await storedStatus(rookery, proven.id as string);
        return row && !row.pendingApproval ? row : null;
      });
      assert.equal(stood.approvedByUri, proven.approvedBy);
      await eventually(
        "the forged one discarded",
        async () => (await storedStatus(rookery, forged.id as string))?.deletedAt != null,
      );
      const context = await ok(rookery, alice, "GET", `/api/v1/statuses/${guarded.id}/context`);
      assert.deepEqual(context.descendants.map((s: Json) => s.uri), [proven.id]);
      budget.count = fullBudget;
    });

    await t.step("a parent that arrives later links only a proven reply", async () => {
      const later = gts.note("zork", { interactionPolicy: guardedPolicy });
      const proven = other.note("xavier", { inReplyTo: later.id });
      proven.approvedBy = authorization(
        "ReplyAuthorization",
        proven.id as string,
        later.id as string,
      );
      const unproven = other.note("xavier", { inReplyTo: later.id });
      budget.count = 0; // the parent is not fetched: the replies are stored without it
      await create(proven);
      await create(unproven);
      const first = await arrived(rookery, proven.id as string, "the proven reply");
      await arrived(rookery, unproven.id as string, "the unproven reply");
      budget.count = fullBudget;
      // Opening the thread fetches the missing parent (or the job did meanwhile).
      await ok(rookery, alice, "GET", `/api/v1/statuses/${first.id}/context`);
      const linked = await eventually("the proven reply linked", async () => {
        const row = await storedStatus(rookery, proven.id as string);
        return row?.inReplyToId ? row : null;
      });
      assert.equal(linked.approvedByUri, proven.approvedBy);
      assert.equal(await committedApproval(proven.id as string), proven.approvedBy);
      const unprovenRow = await storedStatus(rookery, unproven.id as string);
      if (!unprovenRow?.deletedAt) {
        await ok(rookery, alice, "GET", `/api/v1/statuses/${unprovenRow!.id}/context`);
      }
      await eventually(
        "the unproven reply discarded",
        async () => (await storedStatus(rookery, unproven.id as string))?.deletedAt != null,
      );
      assert.equal((await storedStatus(rookery, unproven.id as string))?.inReplyToId, null);
    });

    await t.step("a third server's boost needs its proof, checked later over budget", async () => {
      const boost = (target: string, claim: "valid" | "forged" | null) => {
        const id = other.id("xavier", "announces");
        const interacting = claim === "valid" ? id : `${xavier}/announces/elsewhere`;
        return {
          id,
          type: "Announce",
          actor: xavier,
          object: target,
          to: [PUBLIC],
          ...(claim
            ? { approvedBy: authorization("AnnounceAuthorization", interacting, target) }
            : {}),
        };
      };
      const unproven = boost(guarded.uri, null);
      const proven = boost(guarded.uri, "valid");
      await other.deliver("xavier", unproven);
      await other.deliver("xavier", proven);
      const stored = await arrived(rookery, proven.id, "the proven boost");
      assert.equal(stored.approvedByUri, proven.approvedBy);
      assert.equal(stored.pendingApproval, false);
      assert.equal(await committedApproval(proven.id), proven.approvedBy);
      assert.equal(await storedStatus(rookery, unproven.id), undefined);

      // Over budget (fetching the boosted post takes it), the proof is checked by the job.
      const unknown = gts.note("zork", { interactionPolicy: guardedPolicy });
      const unknownToo = gts.note("zork", { interactionPolicy: guardedPolicy });
      budget.count = 1;
      const later = boost(unknown.id as string, "valid");
      const forged = boost(unknownToo.id as string, "forged");
      await other.deliver("xavier", later);
      await other.deliver("xavier", forged);
      const verified = await eventually("the boost verified", async () => {
        const row = await storedStatus(rookery, later.id);
        return row && !row.pendingApproval ? row : null;
      });
      assert.equal(verified.approvedByUri, later.approvedBy);
      await marker(); // the forged boost was handled (held): the job then discards it
      await eventually(
        "the forged boost discarded",
        async () => (await storedStatus(rookery, forged.id)) === undefined,
      );
      budget.count = fullBudget;
      const original = await storedStatus(rookery, unknown.id as string);
      const shown = await ok(rookery, alice, "GET", `/api/v1/statuses/${original!.id}`);
      assert.equal(shown.reblogs_count, 1);
    });

    await t.step("a broadcast Accept by the post's author brings the reply we lacked", async () => {
      const reply = other.note("xavier", { inReplyTo: guarded.uri, content: "<p>ok?</p>" });
      const stray = other.note("xavier", { inReplyTo: hello.id, content: "<p>stray</p>" });
      const accept = (object: Json, target: string) => ({
        id: gts.id("zork", "accepts"),
        type: "Accept",
        actor: zork,
        to: [xavier],
        cc: [PUBLIC, `${zork}/followers`],
        object: object.id,
        target,
        result: `${gts.peer.origin}/users/zork/authorizations/broadcast-${++serial}`,
      });
      // Not zork's post: no approval of zork's to give.
      await gts.deliver("zork", accept(stray, hello.id as string));
      const approval = accept(reply, guarded.uri);
      await gts.deliver("zork", approval);
      const stored = await arrived(rookery, reply.id as string, "the approved reply");
      assert.equal(stored.approvedByUri, approval.result);
      assert.equal(await committedApproval(reply.id as string), approval.result);
      assert.equal(stored.inReplyToId, guarded.id);
      assert.equal(await storedStatus(rookery, stray.id as string), undefined);
    });
  } finally {
    budget.count = fullBudget;
    await gts.close();
    await other.close();
    await rookery.close({ destroy: true });
  }
});
