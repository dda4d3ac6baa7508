/**
 * Polls over HTTP: the vote rules (single, multiple, repeated, ended,
 * invalid index, own poll, blocks), tallies and voters, concurrent votes,
 * visibility, and closing on time by the worker with `poll` notifications.
 */
import assert from "node:assert/strict";
import { and, eq, sql } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { notifications, polls } from "../../db/schema/mod.ts";
import { closeDuePolls } from "../../actors/polls/close.ts";
import { call, callJson } from "../fixtures/api.ts";
import { createUser, type TestUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import type { TestInstance } from "../harness.ts";

async function postPoll(
  instance: TestInstance,
  user: TestUser,
  options: string[],
  extra: Record<string, unknown> = {},
  pollExtra: Record<string, unknown> = {},
): Promise<{ statusId: string; pollId: string }> {
  const res = await callJson(instance, user, "POST", "/api/v1/statuses", {
    status: "Which one?",
    poll: { options, expires_in: 3600, ...pollExtra },
    ...extra,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { statusId: res.body.id, pollId: res.body.poll.id };
}

function vote(instance: TestInstance, user: TestUser, pollId: string, choices: unknown[]) {
  return callJson(instance, user, "POST", `/api/v1/polls/${pollId}/votes`, { choices });
}

test("vote rules, tallies and voters", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const carol = await createUser(instance, "carol");
    const single = await postPoll(instance, alice, ["a", "b", "c"]);

    const first = await vote(instance, bob, single.pollId, [1]);
    assert.equal(first.status, 200);
    assert.equal(first.body.id, single.pollId);
    assert.equal(first.body.voted, true);
    assert.deepEqual(first.body.own_votes, [1]);
    assert.equal(first.body.votes_count, 1);
    assert.equal(first.body.voters_count, null);
    assert.deepEqual(first.body.options.map((o: { votes_count: number }) => o.votes_count), [
      0,
      1,
      0,
    ]);

    const again = await vote(instance, bob, single.pollId, [0]);
    assert.equal(again.status, 422);
    assert.equal(again.body.error, "Validation failed: You have already voted on this poll");
    const two = await vote(instance, carol, single.pollId, [0, 1]);
    assert.equal(two.status, 422);
    assert.equal(two.body.error, "Validation failed: You have already voted on this poll");
    const outOfRange = await vote(instance, carol, single.pollId, [3]);
    assert.equal(outOfRange.status, 422);
    assert.equal(outOfRange.body.error, "Validation failed: The chosen vote option does not exist");
    for (const bad of [[-1], ["x"], ["1.5"]]) {
      assert.equal((await vote(instance, carol, single.pollId, bad)).status, 422, String(bad));
    }
    const own = await vote(instance, alice, single.pollId, [0]);
    assert.equal(own.status, 422);
    assert.equal(own.body.error, "Validation failed: You cannot vote in your own polls");
    const missing = await callJson(instance, carol, "POST", `/api/v1/polls/${single.pollId}/votes`);
    assert.equal(missing.status, 400);
    // Form encoding with Rails keys works too.
    const form = await instance.request(`/api/v1/polls/${single.pollId}/votes`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${carol.token}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "choices[]=2",
    });
    assert.equal(form.status, 200);

    const anon = await callJson(instance, null, "GET", `/api/v1/polls/${single.pollId}`);
    assert.equal(anon.status, 200);
    assert.equal(anon.body.voted, undefined);
    assert.equal(anon.body.votes_count, 2);
    assert.equal(anon.body.expired, false);
    const asBob = await callJson(instance, bob, "GET", `/api/v1/polls/${single.pollId}`);
    assert.deepEqual(asBob.body.own_votes, [1]);

    // Multiple choice: votes and voters counted apart.
    const multi = await postPoll(instance, alice, ["x", "y", "z"], {}, { multiple: true });
    const m1 = await vote(instance, carol, multi.pollId, ["0", "2"]);
    assert.equal(m1.status, 200);
    assert.deepEqual(m1.body.own_votes, [0, 2]);
    const m2 = await vote(instance, bob, multi.pollId, [2]);
    assert.equal(m2.body.votes_count, 3);
    assert.equal(m2.body.voters_count, 2);
    assert.deepEqual(m2.body.options.map((o: { votes_count: number }) => o.votes_count), [1, 0, 2]);
    assert.equal((await vote(instance, carol, multi.pollId, [1])).status, 422);
    const dup = await vote(instance, alice, multi.pollId, [1, 1]);
    assert.equal(dup.status, 422);

    // Concurrent votes all count: one transaction with a row lock each.
    const crowd = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createUser(instance, `voter${i}`)),
    );
    const results = await Promise.all(
      crowd.map((u, i) => vote(instance, u, multi.pollId, [i % 3])),
    );
    assert.ok(results.every((r) => r.status === 200));
    const [row] = await instance.rookery.ctx.database.db.select().from(polls)
      .where(eq(polls.id, multi.pollId));
    assert.equal(row.votesCount, 9);
    assert.equal(row.votersCount, 8);
    assert.deepEqual(row.tallies, [3, 2, 4]);

    // Ended polls refuse votes.
    await instance.rookery.ctx.database.db.update(polls)
      .set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(polls.id, multi.pollId));
    const ended = await vote(instance, crowd[0], multi.pollId, [1]);
    assert.equal(ended.status, 422);
    assert.equal(
      ended.body.error,
      "Validation failed: The poll has already ended, You have already voted on this poll",
    );
    const late = await createUser(instance, "late");
    const endedFresh = await vote(instance, late, multi.pollId, [1]);
    assert.equal(endedFresh.body.error, "Validation failed: The poll has already ended");
    assert.equal(
      (await callJson(instance, late, "GET", `/api/v1/polls/${multi.pollId}`)).body.expired,
      true,
    );
  } finally {
    await instance.close({ destroy: true });
  }
});

test("poll visibility, blocks and hostile ids", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const eve = await createUser(instance, "eve");
    const priv = await postPoll(instance, alice, ["a", "b"], { visibility: "private" });
    for (const user of [null, bob]) {
      const res = await callJson(instance, user, "GET", `/api/v1/polls/${priv.pollId}`);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { error: "Record not found" });
    }
    assert.equal((await vote(instance, bob, priv.pollId, [0])).status, 404);
    assert.equal(
      (await callJson(instance, alice, "GET", `/api/v1/polls/${priv.pollId}`)).status,
      200,
    );
    // A follower sees it and may vote.
    await callJson(instance, bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
    assert.equal((await vote(instance, bob, priv.pollId, [0])).status, 200);

    const pub = await postPoll(instance, alice, ["a", "b"]);
    await callJson(instance, alice, "POST", `/api/v1/accounts/${eve.id}/block`);
    assert.equal((await callJson(instance, eve, "GET", `/api/v1/polls/${pub.pollId}`)).status, 404);
    assert.equal((await vote(instance, eve, pub.pollId, [0])).status, 404);

    for (const id of ["abc", "99999999999999999999", "1"]) {
      assert.equal((await callJson(instance, bob, "GET", `/api/v1/polls/${id}`)).status, 404, id);
      assert.equal((await vote(instance, bob, id, [0])).status, 404, id);
    }
    // A deleted status's poll is gone.
    await call(instance, alice, "DELETE", `/api/v1/statuses/${pub.statusId}`);
    assert.equal((await callJson(instance, bob, "GET", `/api/v1/polls/${pub.pollId}`)).status, 404);
    // Oversized input.
    const huge = await vote(instance, bob, priv.pollId, Array.from({ length: 500 }, () => 0));
    assert.equal(huge.status, 422);
  } finally {
    await instance.close({ destroy: true });
  }
});

test("polls close on time: closed_at, poll notifications to author and local voters", async () => {
  const instance = await startInstance();
  try {
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const carol = await createUser(instance, "carol");
    const { db } = instance.rookery.ctx.database;
    const p = await postPoll(instance, alice, ["a", "b"]);
    const other = await postPoll(instance, alice, ["c", "d"]);
    await vote(instance, bob, p.pollId, [0]);
    await vote(instance, carol, p.pollId, [1]);
    await db.update(polls).set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(polls.id, p.pollId));

    // The worker (started by the instance) closes it within its period.
    const closedAt = await eventually("the poll to close", async () => {
      const [row] = await db.select().from(polls).where(eq(polls.id, p.pollId));
      return row.closedAt ?? undefined;
    }, 30_000);
    assert.ok(closedAt.getTime() <= Date.now());
    const [open] = await db.select().from(polls).where(eq(polls.id, other.pollId));
    assert.equal(open.closedAt, null);

    const rows = await db.select().from(notifications)
      .where(and(eq(notifications.type, "poll"), eq(notifications.statusId, p.statusId)));
    assert.deepEqual(rows.map((r) => r.accountId).sort(), [alice.id, bob.id, carol.id].sort());
    assert.ok(rows.every((r) => r.fromAccountId === alice.id));
    const listed = await callJson(instance, bob, "GET", "/api/v1/notifications?types[]=poll");
    assert.equal(listed.status, 200);
    assert.equal(listed.body.length, 1);
    assert.equal(listed.body[0].type, "poll");
    assert.equal(listed.body[0].status.poll.expired, true);

    // Running the job again changes nothing: each poll closes once.
    assert.equal(await closeDuePolls(instance.rookery.ctx), 0);
    const [{ n }] = await instance.rookery.ctx.database.rows<{ n: string }>(
      sql`SELECT count(*) AS n FROM notifications WHERE type = 'poll'`,
    );
    assert.equal(Number(n), 3);
  } finally {
    await instance.close({ destroy: true });
  }
});
