/**
 * The fetch budget of an inbound activity (federation/fetch/budget.ts). A
 * hand-written peer (tests/fixtures/fake_peer.ts) delivers a reply whose
 * thread is deeper and wider than the budget: each parent quotes another
 * post and every post has an author we do not know.
 * - While the Create is handled, at most FETCH_BUDGET (8) documents are
 *   fetched: the peer holds every GET past the 8th until the reply is
 *   stored, so a handler that fetched more would never finish.
 * - The rest arrives later, through the job: every parent and quoted post
 *   within MAX_DEPTH levels is stored and linked (thread, reply counts,
 *   conversation, quotes); nothing deeper is fetched.
 * - A peer that never answers holds the handler until the budget's deadline
 *   (FETCH_BUDGET_SECONDS), not for the whole FETCH_TIMEOUT; the parent it
 *   held back arrives later through the job.
 * - Opening the thread (context) as a signed-in user fetches the parent
 *   missing at its top (once per ten minutes when it cannot be had); an
 *   anonymous visitor fetches nothing.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { quotes, statuses } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
/** The activity context, with FEP-044f's `quote`. */
const CONTEXT = [AS, { quote: { "@id": "https://w3id.org/fep/044f#quote", "@type": "@id" } }];
/** The budget's count the instance runs with (the default of FETCH_BUDGET). */
const BUDGET = 8;

test("an inbound activity fetches within its budget; the rest comes later", async (t) => {
  // A deadline far enough that only the count can end the first step's
  // fetches; the stalling step shortens it (FETCH_TIMEOUT is 30 s in tests).
  const rookery = await startInstance({ env: { FETCH_BUDGET_SECONDS: "60" } });
  const setDeadline = (seconds: number) => {
    (rookery.rookery.ctx.config.fetchBudget as { ms: number }).ms = seconds * 1000;
  };
  const peer = await startFakePeer();
  const send = (request: Request) => rookery.request(request.url, request);
  const inbox = `${rookery.origin}/inbox`;
  const db = rookery.rookery.ctx.database.db;
  const poster = peer.publishActor("poster");
  let serial = 0;

  /**
   * GETs of the peer's documents, each marked with whether `watched` was
   * stored when it arrived. Past BUDGET such GETs, a GET is held until
   * `watched` is stored: a handler that needed it would never store it (and
   * the test fails), while the job's fetches, which can only start once the
   * handler's budget is spent (a refusal is what records a job), just wait.
   */
  const gets: { path: string; during: boolean; held: boolean }[] = [];
  let watched: string | null = null;
  let arrivedDuring = 0;
  const countGets = (path: string, answer: () => Response | Promise<Response>) =>
    peer.route(path, async () => {
      const during = watched != null && !(await storedStatus(rookery, watched));
      const held = during && ++arrivedDuring > BUDGET;
      gets.push({ path, during, held });
      if (held) {
        await eventually(
          "the reply, before a GET past the budget",
          () => storedStatus(rookery, watched!),
          60_000,
        );
      }
      return await answer();
    });
  const json = (body: unknown) =>
    new Response(JSON.stringify(body), {
      headers: { "Content-Type": "application/activity+json" },
    });
  /** An author we do not know yet, its actor document counted. */
  const author = (name: string) => {
    const id = peer.publishActor(name);
    const document = {
      "@context": [AS, "https://w3id.org/security/v1"],
      id,
      type: "Person",
      preferredUsername: name,
      inbox: `${id}/inbox`,
      publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: peer.publicKeyPem },
    };
    countGets(`/users/${name}`, () => json(document));
    return id;
  };
  const note = (name: string, by: string, extra: Record<string, unknown> = {}) => ({
    "@context": CONTEXT,
    id: `${peer.origin}/notes/${name}`,
    type: "Note",
    attributedTo: by,
    to: [PUBLIC],
    content: `<p>${name}</p>`,
    published: new Date(Date.now() - 60_000 + serial++).toISOString(),
    ...extra,
  });
  /** A note served (and counted) at its id. */
  const publish = (name: string, by: string, extra: Record<string, unknown> = {}) => {
    const document = note(name, by, extra);
    countGets(`/notes/${name}`, () => json(document));
    return document;
  };
  const deliverCreate = async (object: Record<string, unknown>) => {
    const activity = {
      "@context": CONTEXT,
      id: `${object.id}/activity`,
      type: "Create",
      actor: poster,
      to: [PUBLIC],
      object,
    };
    const res = await peer.deliver(inbox, activity, { keyId: `${poster}#main-key`, send });
    assert.equal(await statusOf(res), 202);
  };
  const row = async (uri: string) => {
    const found = await storedStatus(rookery, uri);
    assert.ok(found, `${uri} is stored`);
    return found;
  };
  const alice = await createUser(rookery, "alice");

  // The thread: p1 ← p2 ← … ← p6 (each a reply to the next), p_i quoting
  // q_i, every post by an author of its own. The reply R answers p1 and
  // quotes q0. Fetched at once, all of it within MAX_DEPTH (5) levels would
  // be 10 posts and 10 authors: 20 GETs.
  const uri = (name: string) => `${peer.origin}/notes/${name}`;
  for (let i = 0; i <= 5; i++) publish(`q${i}`, author(`qa${i}`));
  for (let i = 1; i <= 6; i++) {
    publish(`p${i}`, author(`pa${i}`), {
      ...(i < 6 ? { inReplyTo: uri(`p${i + 1}`) } : {}),
      ...(i < 6 ? { quote: uri(`q${i}`) } : {}),
    });
  }
  const reply = note("reply", poster, { inReplyTo: uri("p1"), quote: uri("q0") });

  try {
    // The sender is known (as after any earlier delivery): its fetch is not the thread's.
    const hello = note("hello", poster);
    await deliverCreate(hello);
    await eventually("the first post", () => storedStatus(rookery, hello.id));

    await t.step("the Create fetches at most the budget; the job fetches the rest", async () => {
      watched = reply.id;
      await deliverCreate(reply);
      const stored = await eventually("the reply", () => storedStatus(rookery, reply.id));
      const handled = gets.filter((g) => g.during && !g.held);
      assert.ok(handled.length >= 1, "the handler fetched what its budget allowed");
      assert.ok(handled.length <= BUDGET);
      assert.equal(stored.inReplyToUri, uri("p1"));

      // Later, every post within 5 levels arrives and is linked.
      const parents = await eventually("the thread, linked", async () => {
        const rows = [];
        for (let i = 1; i <= 5; i++) {
          const parent = await storedStatus(rookery, uri(`p${i}`));
          if (!parent || (i < 5 && !parent.inReplyToId)) return null;
          rows.push(parent);
        }
        const r = await storedStatus(rookery, reply.id);
        return r?.inReplyToId && r.quotedStatusId ? rows : null;
      }, 60_000);
      const replyRow = await row(reply.id);
      assert.equal(replyRow.inReplyToId, parents[0].id);
      for (let i = 0; i < 4; i++) {
        assert.equal(parents[i].inReplyToId, parents[i + 1].id, `p${i + 1} answers p${i + 2}`);
      }
      assert.equal(parents[4].inReplyToId, null, "p6 is deeper than MAX_DEPTH");
      assert.equal(parents[4].inReplyToUri, uri("p6"));
      // One conversation, each parent counting its one reply.
      const fresh = await Promise.all(parents.map((p) => row(p.uri)));
      for (const p of fresh) {
        assert.equal(p.conversationId, replyRow.conversationId);
        assert.equal(p.repliesCount, 1);
      }
      // The quotes: the reply's q0 and p1…p4's q1…q4 (p5's q5 is level 6).
      const q0 = await row(uri("q0"));
      assert.equal(replyRow.quotedStatusId, q0.id);
      const [quote] = await db.select().from(quotes).where(eq(quotes.statusId, replyRow.id));
      assert.equal(quote.quotedStatusId, q0.id);
      assert.equal(quote.state, "pending", "no stamp: the quote waits for approval");
      await eventually("the parents' quotes", async () => {
        for (let i = 1; i <= 4; i++) {
          const [p, q] = [await row(uri(`p${i}`)), await storedStatus(rookery, uri(`q${i}`))];
          if (!q || p.quotedStatusId !== q.id) return false;
        }
        return true;
      }, 60_000);
      assert.equal(peer.hits("/notes/p6"), 0);
      assert.equal(peer.hits("/notes/q5"), 0);
      assert.ok(
        gets.some((g) => !g.during || g.held),
        "the job fetched what the handler could not",
      );
      // Nothing was fetched over and over.
      for (const path of new Set(gets.map((g) => g.path))) {
        assert.ok(peer.hits(path) <= 2, `${path} fetched ${peer.hits(path)} times`);
      }
    });

    await t.step("a peer that stalls holds the handler until the deadline only", async () => {
      const abandoned = Promise.withResolvers<void>();
      const slow = note("slow-parent", author("slowpoke"));
      const stall = peer.stall(() => abandoned.resolve());
      let asked = 0;
      peer.route("/notes/slow-parent", (request) => ++asked === 1 ? stall(request) : json(slow));
      const late = note("late-reply", poster, { inReplyTo: slow.id });
      setDeadline(3);
      watched = late.id;
      arrivedDuring = 0;
      await deliverCreate(late);
      // Stored after the 3 s deadline (FETCH_TIMEOUT would have waited 30 s).
      await eventually("the reply", () => storedStatus(rookery, late.id), 15_000);
      // The handler gave the stalled fetch up; the parent came with a second one, the job's.
      await abandoned.promise;
      const linked = await eventually("the parent, linked", async () => {
        const r = await storedStatus(rookery, late.id);
        return r?.inReplyToId ? r : null;
      });
      assert.equal(linked.inReplyToId, (await row(slow.id)).id);
      assert.equal((await row(slow.id)).repliesCount, 1);
      assert.equal(asked, 2);
    });

    await t.step("opening the thread fetches the parent missing at its top", async () => {
      const replyRow = await row(reply.id);
      const path = `/api/v1/statuses/${replyRow.id}/context`;
      const anonymous = await callJson(rookery, null, "GET", path);
      assert.equal(anonymous.status, 200);
      assert.equal(anonymous.body.ancestors.length, 5);
      assert.equal(peer.hits("/notes/p6"), 0, "an anonymous visitor fetches nothing");
      const context = await callJson(rookery, alice, "GET", path);
      assert.equal(context.status, 200);
      assert.deepEqual(
        context.body.ancestors.map((s: { uri: string }) => s.uri),
        [6, 5, 4, 3, 2, 1].map((i) => uri(`p${i}`)),
      );
      assert.equal(peer.hits("/notes/p6"), 1);
      const [p5, p6] = [await row(uri("p5")), await row(uri("p6"))];
      assert.equal(p5.inReplyToId, p6.id);
      assert.equal(p6.repliesCount, 1);
      const thread = await db.select({ id: statuses.id }).from(statuses)
        .where(eq(statuses.conversationId, p6.conversationId!));
      assert.ok(thread.length >= 7, "the reply and its parents share p6's conversation");

      // A parent that cannot be had is asked for once per ten minutes, not at every view.
      const orphan = note("orphan", poster, { inReplyTo: uri("gone") });
      await deliverCreate(orphan);
      const orphanRow = await eventually("the orphan", () => storedStatus(rookery, orphan.id));
      const gone = peer.hits("/notes/gone");
      for (let view = 0; view < 2; view++) {
        const viewed = await callJson(
          rookery,
          alice,
          "GET",
          `/api/v1/statuses/${orphanRow.id}/context`,
        );
        assert.equal(viewed.status, 200);
        assert.deepEqual(viewed.body.ancestors, []);
      }
      assert.equal(peer.hits("/notes/gone"), gone + 1);
    });
  } finally {
    await rookery.close({ destroy: true });
    await peer.close();
  }
});
