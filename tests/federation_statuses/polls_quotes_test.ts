/**
 * Polls and quotes across two instances: a vote from the other server
 * counts in the origin's poll and the new results come back as
 * Update(Question); a quote of a remote post is approved by the quoted
 * author's server (QuoteRequest → Accept with a QuoteAuthorization stamp)
 * and notifies the quoted author; revoking withdraws the stamp on both sides.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { quotes } from "../../db/schema/mod.ts";
import { test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { arrived, closeAll, followRemote, startPair } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

test("a vote in a remote poll counts there and results come back; a quote is approved", async () => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    await followRemote(b, bob, a, alice);

    // The poll.
    const poll = await postStatus(a, alice, {
      status: "Tea or coffee?",
      poll: { options: ["tea", "coffee"], expires_in: 3600 },
    });
    const pollOnB = await arrived(b, poll.uri, "the Question");
    const shown = await callJson(b, bob, "GET", `/api/v1/statuses/${pollOnB.id}`);
    assert.deepEqual(shown.body.poll.options.map((o: any) => o.title), ["tea", "coffee"]);
    const voted = await callJson(b, bob, "POST", `/api/v1/polls/${shown.body.poll.id}/votes`, {
      choices: [1],
    });
    assert.equal(voted.status, 200, JSON.stringify(voted.body));
    await eventually("the vote on A", async () => {
      const s = await callJson(a, alice, "GET", `/api/v1/statuses/${poll.id}`);
      return s.body.poll.votes_count === 1 && s.body.poll.options[1].votes_count === 1;
    });
    // The vote is not a status on A.
    const onA = await callJson(a, alice, "GET", `/api/v1/statuses/${poll.id}/context`);
    assert.equal(onA.body.descendants.length, 0);
    await eventually("Update(Question) on B", async () => {
      const s = await callJson(b, bob, "GET", `/api/v1/statuses/${pollOnB.id}`);
      return s.body.poll.votes_count === 1 && s.body.poll.options[1].votes_count === 1 &&
        s.body.poll.voted === true;
    });

    // The quote: Bob quotes Alice's public post; A approves it (policy public).
    const quoted = await postStatus(a, alice, { status: "quote me", visibility: "public" });
    const quotedOnB = await arrived(b, quoted.uri, "the post to quote");
    const quote = await postStatus(b, bob, { status: "so true", quoted_status_id: quotedOnB.id });
    assert.equal(quote.quote?.state, "pending");
    const quoteOnA = await arrived(a, quote.uri, "the quote post");
    await eventually("accepted on A", async () => {
      const s = await callJson(a, alice, "GET", `/api/v1/statuses/${quoted.id}`);
      return s.body.quotes_count === 1;
    });
    await eventually("accepted on B", async () => {
      const s = await callJson(b, bob, "GET", `/api/v1/statuses/${quote.id}`);
      return s.body.quote?.state === "accepted";
    });
    const [row] = await b.rookery.ctx.database.db.select().from(quotes)
      .where(eq(quotes.statusId, quote.id));
    assert.ok(row.approvalUri?.startsWith(`${a.origin}/users/alice/quote_authorizations/`));
    // The stamp can be fetched.
    const stamp = await fetch(row.approvalUri!, {
      headers: { Accept: "application/activity+json" },
    });
    const stampJson = await stamp.json();
    assert.equal(stampJson.type, "QuoteAuthorization");
    assert.equal(stampJson.interactingObject, quote.uri);
    assert.equal(stampJson.interactionTarget, quoted.uri);
    await eventually("quote notification on A", async () => {
      const n = await callJson(a, alice, "GET", "/api/v1/notifications");
      return n.body.some((x: any) => x.type === "quote" && x.status?.id === quoteOnA.id);
    });
    // The quote post as A serves it, with FEP-044f and the older properties.
    const res = await fetch(quote.uri, { headers: { Accept: "application/activity+json" } });
    const note = await res.json();
    assert.equal(note.quote, quoted.uri);
    assert.equal(note._misskey_quote, quoted.uri);
    assert.equal(note.quoteAuthorization, row.approvalUri);

    // Alice revokes: the stamp goes (404) and B marks the quote revoked.
    const revoked = await callJson(
      a,
      alice,
      "POST",
      `/api/v1/statuses/${quoted.id}/quotes/${quoteOnA.id}/revoke`,
    );
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    const after = await fetch(row.approvalUri!, {
      headers: { Accept: "application/activity+json" },
    });
    await after.body?.cancel();
    assert.equal(after.status, 404);
    await eventually("revoked on B", async () => {
      const [r] = await b.rookery.ctx.database.db.select().from(quotes)
        .where(eq(quotes.statusId, quote.id));
      return r.state === "revoked";
    });
  } finally {
    await closeAll(a, b);
  }
});
