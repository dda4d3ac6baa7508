/**
 * The answer to a remote QuoteRequest goes through the transactional outbox
 * like every other activity: the decision and the intent to deliver the
 * Accept (or Reject) commit together, and the intent is relayed until the
 * answer arrives. A hand-written peer (tests/fixtures/fake_peer.ts) asks to
 * quote a local post while the queue refuses outgoing messages (a trigger on
 * federation_queue, as in relay_test.ts): the quote is accepted and the
 * Accept waits as an intent; once the queue works, the Accept arrives with
 * the stamp as its `result`. A request whose quote post is not the
 * requester's gets a Reject, the same way.
 */
import assert from "node:assert/strict";
import { eq, sql } from "drizzle-orm";
import { quotes } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { startFakePeer, statusOf } from "../fixtures/fake_peer.ts";
import { storedStatus } from "../fixtures/federation.ts";
import { postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
const CONTEXT = [
  AS,
  {
    QuoteRequest: "https://w3id.org/fep/044f#QuoteRequest",
    quote: { "@id": "https://w3id.org/fep/044f#quote", "@type": "@id" },
  },
];

interface Received {
  id?: string;
  type?: string;
  actor?: string;
  object?: string | { id?: string; type?: string; instrument?: string };
  result?: string;
}

test("a QuoteRequest's answer is an outbox intent that is relayed until it arrives", async (t) => {
  const rookery = await startInstance();
  const peer = await startFakePeer();
  const send = (request: Request) => rookery.request(request.url, request);
  const rows = <T>(query: ReturnType<typeof sql>) => rookery.rookery.ctx.database.rows<T>(query);
  const quoter = peer.publishActor("quoter");
  const received: Received[] = [];
  peer.route("/users/quoter/inbox", async (request) => {
    received.push(await request.json());
    return new Response(null, { status: 202 });
  });
  const answersTo = (requestId: string) =>
    received.filter((r) => typeof r.object === "object" && r.object?.id === requestId);
  const alice = await createUser(rookery, "alice");
  const quoted = await postStatus(rookery, alice, {
    status: "quote me",
    visibility: "public",
    quote_approval_policy: "public",
  });
  let serial = 0;
  const quotePost = (by: string) => {
    const id = `${peer.origin}/notes/quote-${++serial}`;
    peer.serve(`/notes/quote-${serial}`, {
      "@context": CONTEXT,
      id,
      type: "Note",
      attributedTo: by,
      to: [PUBLIC],
      content: "<p>so true</p>",
      quote: quoted.uri,
      published: new Date().toISOString(),
    });
    return id;
  };
  const ask = async (instrument: string) => {
    const id = `${quoter}/quote_requests/${++serial}`;
    const res = await peer.deliver(`${rookery.origin}/inbox`, {
      "@context": CONTEXT,
      id,
      type: "QuoteRequest",
      actor: quoter,
      object: quoted.uri,
      instrument,
    }, { keyId: `${quoter}#main-key`, send });
    assert.equal(await statusOf(res), 202);
    return id;
  };

  try {
    await t.step(
      "the Accept is recorded with the approval and relayed once it can be",
      async () => {
        await rows(sql`CREATE FUNCTION test_refuse_outgoing() RETURNS trigger LANGUAGE plpgsql
        AS $$ BEGIN
          IF NEW.message->>'type' IN ('outbox', 'fanout') THEN
            RAISE EXCEPTION 'test: the queue refuses outgoing messages';
          END IF;
          RETURN NEW;
        END $$`);
        await rows(sql`CREATE TRIGGER test_refuse_outgoing BEFORE INSERT ON federation_queue
        FOR EACH ROW EXECUTE FUNCTION test_refuse_outgoing()`);
        const instrument = quotePost(quoter);
        const requestId = await ask(instrument);
        // The decision is committed, and its Accept waits as an intent the relay retries.
        const intent = await eventually("the Accept's intent, tried", async () => {
          const [row] = await rows<{ attempts: number; args: unknown }>(sql`
          SELECT attempts, args FROM outbox_intents
          WHERE method = 'quoteRequestAnswered' AND args->0->>'requestUri' = ${requestId}`);
          return row && row.attempts >= 1 ? row : null;
        }, 60_000);
        const quoting = await storedStatus(rookery, instrument);
        assert.ok(quoting);
        const [quote] = await rookery.rookery.ctx.database.db.select().from(quotes)
          .where(eq(quotes.statusId, quoting.id));
        assert.equal(quote.state, "accepted");
        assert.equal(quote.activityUri, requestId);
        assert.ok(quote.approvalUri);
        const args = (typeof intent.args === "string" ? JSON.parse(intent.args) : intent.args) as [
          { stampUri: string },
        ];
        assert.equal(args[0].stampUri, quote.approvalUri);
        assert.deepEqual(answersTo(requestId), []);

        await rows(sql`DROP TRIGGER test_refuse_outgoing ON federation_queue`);
        await rows(sql`DROP FUNCTION test_refuse_outgoing()`);
        const [accept] = await eventually("the Accept at the peer", () => {
          const answers = answersTo(requestId);
          return Promise.resolve(answers.length ? answers : null);
        }, 30_000);
        assert.equal(accept.type, "Accept");
        assert.equal(accept.actor, `${rookery.origin}/users/alice`);
        assert.equal(accept.result, quote.approvalUri);
        assert.deepEqual(
          typeof accept.object === "object" ? accept.object.instrument : null,
          instrument,
        );
        await eventually(
          "the intent, gone",
          async () => (await rows(sql`SELECT id FROM outbox_intents`)).length === 0,
        );
      },
    );

    await t.step("a request whose quote post is not the requester's gets a Reject", async () => {
      const someoneElse = peer.publishActor("someone");
      const requestId = await ask(quotePost(someoneElse));
      const [reject] = await eventually("the Reject at the peer", () => {
        const answers = answersTo(requestId);
        return Promise.resolve(answers.length ? answers : null);
      }, 30_000);
      assert.equal(reject.type, "Reject");
      assert.equal(reject.actor, `${rookery.origin}/users/alice`);
    });
  } finally {
    await rookery.close({ destroy: true });
    await peer.close();
  }
});
