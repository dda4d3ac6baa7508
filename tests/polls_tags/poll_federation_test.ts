/**
 * Poll deliveries, received by a fake remote inbox on loopback: a local vote
 * in a remote poll goes to its author as Create(Note {name, inReplyTo}), and
 * a vote in a local poll sends Update(Question) with the new counts to the
 * author's remote followers.
 */
import assert from "node:assert/strict";
import { newId } from "../../db/ids.ts";
import { accounts, follows, polls, statuses } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

test("votes in remote polls and Update(Question) reach the remote side", async () => {
  const received: Record<string, any>[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    if (req.method === "POST") received.push(await req.json());
    return new Response(null, { status: 202 });
  });
  const remote = `http://127.0.0.1:${server.addr.port}`;
  const instance = await startInstance();
  try {
    const { db } = instance.rookery.ctx.database;
    const alice = await createUser(instance, "alice");
    const carol = await createUser(instance, "carol");
    const bobId = newId();
    await db.insert(accounts).values({
      id: bobId,
      username: "bob",
      domain: `127.0.0.1:${server.addr.port}`,
      uri: `${remote}/users/bob`,
      inboxUrl: `${remote}/users/bob/inbox`,
      sharedInboxUrl: `${remote}/inbox`,
    });

    // A remote poll: alice votes, bob's server receives Create(Note).
    const statusId = newId();
    const pollId = newId();
    await db.insert(statuses).values({
      id: statusId,
      uri: `${remote}/users/bob/statuses/1`,
      accountId: bobId,
      content: "<p>Tea or coffee?</p>",
      pollId,
    });
    await db.insert(polls).values({
      id: pollId,
      accountId: bobId,
      statusId,
      uri: `${remote}/users/bob/statuses/1`,
      options: ["tea", "coffee"],
      tallies: [3, 4],
      votesCount: 7,
      votersCount: 7,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    const voted = await callJson(instance, alice, "POST", `/api/v1/polls/${pollId}/votes`, {
      choices: [1],
    });
    assert.equal(voted.status, 200);
    assert.deepEqual(voted.body.options.map((o: { votes_count: number }) => o.votes_count), [3, 5]);
    const create = await eventually(
      "the vote",
      () => Promise.resolve(received.find((a) => a.type === "Create")),
      30_000,
    );
    assert.equal(create.actor, `${instance.origin}/users/alice`);
    assert.equal(create.object.type, "Note");
    assert.equal(create.object.name, "coffee");
    assert.equal(create.object.inReplyTo, `${remote}/users/bob/statuses/1`);
    assert.equal(create.object.content, undefined);
    assert.match(create.object.id, /#votes\/\d+$/);
    assert.equal(create.id, `${create.object.id}/activity`);

    // A local poll: bob follows alice; carol's vote sends Update(Question) to bob.
    await db.insert(follows).values({ id: newId(), accountId: bobId, targetAccountId: alice.id });
    const posted = await callJson(instance, alice, "POST", "/api/v1/statuses", {
      status: "Cats or dogs?",
      poll: { options: ["cats", "dogs"], expires_in: 3600 },
    });
    assert.equal(posted.status, 200);
    await callJson(instance, carol, "POST", `/api/v1/polls/${posted.body.poll.id}/votes`, {
      choices: [0],
    });
    const update = await eventually(
      "the Update(Question)",
      () =>
        Promise.resolve(received.find((a) =>
          a.type === "Update" && a.object?.type === "Question" &&
          a.object?.votersCount === 1
        )),
      30_000,
    );
    assert.equal(update.object.id, posted.body.uri);
    const options = update.object.oneOf;
    assert.deepEqual(
      options.map((o: { name: string; replies: { totalItems: number } }) => [
        o.name,
        o.replies.totalItems,
      ]),
      [["cats", 1], ["dogs", 0]],
    );
    assert.ok(update.object.endTime);
    // The Update carries the Question its Create carried: its hashtag, and, with
    // hide_totals, no counts until the poll ends.
    const hidden = await callJson(instance, alice, "POST", "/api/v1/statuses", {
      status: "Tea or milk? #drinks",
      poll: { options: ["tea", "milk"], expires_in: 3600, hide_totals: true },
    });
    assert.equal(hidden.status, 200);
    await callJson(instance, carol, "POST", `/api/v1/polls/${hidden.body.poll.id}/votes`, {
      choices: [1],
    });
    const hiddenUpdate = await eventually(
      "the Update(Question) of the hidden poll",
      () =>
        Promise.resolve(
          received.find((a) => a.type === "Update" && a.object?.id === hidden.body.uri),
        ),
      30_000,
    );
    assert.deepEqual(
      hiddenUpdate.object.oneOf.map((o: { replies: { totalItems?: number } }) =>
        o.replies.totalItems
      ),
      [undefined, undefined],
    );
    assert.deepEqual(
      [hiddenUpdate.object.tag].flat().map((t: { name: string }) => t.name),
      ["#drinks"],
    );
  } finally {
    await instance.close({ destroy: true });
    await server.shutdown();
  }
});
