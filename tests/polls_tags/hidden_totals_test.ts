/**
 * A poll posted with `hide_totals` (as clients send it, form-encoded) shows
 * no option counts to anyone, its author included, until it ends: in the
 * status, the poll route, the answer to a vote, the author's own stream and
 * the public page, and the Question other servers get; `votes_count` (the
 * total) stays, as in Mastodon's Poll entity. Once it has ended, everyone
 * sees the counts.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { polls } from "../../db/schema/mod.ts";
import { callJson, ok } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { WsClient } from "../streaming/helpers.ts";

type Option = { title: string; votes_count: number | null };

test("hide_totals hides option counts from everyone, the author too, until the poll ends", async () => {
  const instance = await startInstance({ listen: true, worker: false });
  const alice = await createUser(instance, "alice");
  const bob = await createUser(instance, "bob");
  // Subscribed when the socket opens: the author's own user stream.
  const stream = await WsClient.open(
    instance,
    `/api/v1/streaming?stream=user&access_token=${alice.token}`,
  );
  try {
    const counts = (poll: { options: Option[] }) => poll.options.map((o) => o.votes_count);

    const form = new URLSearchParams({
      status: "Tea or coffee?",
      "poll[expires_in]": "3600",
      "poll[hide_totals]": "true",
    });
    form.append("poll[options][]", "tea");
    form.append("poll[options][]", "coffee");
    const posted = await instance.request("/api/v1/statuses", {
      method: "POST",
      headers: { Authorization: `Bearer ${alice.token}` },
      body: form,
    });
    assert.equal(posted.status, 200);
    const status = await posted.json();
    assert.deepEqual(counts(status.poll), [null, null], "the author's own answer");
    const streamed = JSON.parse((await stream.next("update", "user")).payload!);
    assert.equal(streamed.id, status.id);
    assert.deepEqual(counts(streamed.poll), [null, null], "the author's stream");

    const voted = await ok(instance, bob, "POST", `/api/v1/polls/${status.poll.id}/votes`, {
      choices: [1],
    });
    assert.deepEqual(counts(voted), [null, null], "the voter's answer");
    assert.equal(voted.votes_count, 1);
    assert.equal(voted.voters_count, null, "single choice: no voters count");

    for (const who of [alice, bob, null]) {
      const seen = await callJson(instance, who, "GET", `/api/v1/statuses/${status.id}`);
      assert.deepEqual(counts(seen.body.poll), [null, null], `status for ${who?.username}`);
      assert.equal(seen.body.poll.votes_count, 1);
      const poll = await callJson(instance, who, "GET", `/api/v1/polls/${status.poll.id}`);
      assert.deepEqual(counts(poll.body), [null, null], `poll for ${who?.username}`);
    }
    // The Question other servers fetch (and are sent) carries no counts either.
    const question = async () => {
      const res = await instance.request(status.uri, {
        headers: { accept: "application/activity+json" },
      });
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.type, "Question");
      return body.oneOf.map((o: { replies: { totalItems?: number } }) => o.replies.totalItems);
    };
    assert.deepEqual(await question(), [undefined, undefined]);
    const page = await (await instance.request(`/@alice/${status.id}`)).text();
    assert.ok(!/\(\d+ votes?\)/.test(page), "the public page shows no counts");
    assert.ok(page.includes("The results are shown when the poll ends."));

    // Ended: the counts are everyone's.
    await instance.rookery.ctx.database.db.update(polls)
      .set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(polls.id, status.poll.id));
    for (const who of [alice, bob, null]) {
      const poll = await callJson(instance, who, "GET", `/api/v1/polls/${status.poll.id}`);
      assert.deepEqual(counts(poll.body), [0, 1], `ended poll for ${who?.username}`);
    }
    assert.deepEqual(await question(), [0, 1]);
    const ended = await (await instance.request(`/@alice/${status.id}`)).text();
    assert.ok(ended.includes("(0 votes)") && ended.includes("(1 vote)"), "the page shows counts");
  } finally {
    await stream.close();
    await instance.close({ destroy: true });
  }
});
