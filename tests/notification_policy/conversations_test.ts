/**
 * Direct messages the policy holds back stay out of the recipient's
 * conversations (and their unread state) until the request is accepted, as
 * in Mastodon: accept brings them in unread; a dismissed one never comes;
 * a dropped one neither; the sender's own side is untouched; deleting the
 * latest message of a conversation does not fall back on a held one.
 */
import assert from "node:assert/strict";
import { startInstance, test } from "../harness.ts";
import { fixtures, type TestUser } from "../notifications/helpers.ts";

test("conversations: filtered direct messages wait for the request", async (t) => {
  const instance = await startInstance();
  try {
    const f = fixtures(instance);
    const [alice, bob, carol, dave, erin, frank] = await Promise.all(
      ["alice", "bob", "carol", "dave", "erin", "frank"].map((n) => f.user(n)),
    );
    const { ok, post } = f;
    const dm = (who: TestUser, status: string, extra: Record<string, unknown> = {}) =>
      post(who, status, { visibility: "direct", ...extra });
    /** Conversations as `last status id (unread?) [participant usernames]`. */
    const conversations = async (who: TestUser): Promise<string[]> =>
      (await ok(who, "GET", "/api/v1/conversations")).map((c: any) =>
        `${c.last_status.id}${c.unread ? " unread" : ""} [${
          c.accounts.map((a: any) => a.username).sort().join(",")
        }]`
      );
    const requestFrom = async (who: TestUser, sender: TestUser) =>
      (await ok(who, "GET", "/api/v1/notifications/requests"))
        .find((r: any) => r.account.id === sender.id);
    // Alice follows carol and erin; the others are strangers to her.
    await ok(alice, "POST", `/api/v1/accounts/${carol.id}/follow`);
    await ok(alice, "POST", `/api/v1/accounts/${erin.id}/follow`);

    await t.step("a stranger's message is held; a friend's comes in", async () => {
      const held = await dm(bob, "@alice psst");
      const held2 = await dm(bob, "@alice psst again", { in_reply_to_id: held.id });
      assert.deepEqual(await conversations(alice), []);
      assert.deepEqual(await conversations(bob), [`${held2.id} [alice]`], "the sender's side");
      const fromCarol = await dm(carol, "@alice hello");
      assert.deepEqual(await conversations(alice), [`${fromCarol.id} unread [carol]`]);
      // A second held message does not touch the unread state of what is there.
      await ok(
        alice,
        "POST",
        `/api/v1/conversations/${(await ok(alice, "GET", "/api/v1/conversations"))[0].id}/read`,
      );
      await dm(bob, "@alice still there?");
      assert.deepEqual(await conversations(alice), [`${fromCarol.id} [carol]`]);
    });

    await t.step("accept brings the held conversations in, unread", async () => {
      const request = await requestFrom(alice, bob);
      assert.equal(request.notifications_count, "3");
      await ok(alice, "POST", `/api/v1/notifications/requests/${request.id}/accept`);
      const list = await ok(alice, "GET", "/api/v1/conversations");
      const bobs = await ok(bob, "GET", "/api/v1/conversations");
      // Two threads: the reply joined the first one, "still there?" started another.
      const fromBob = list.filter((c: any) => c.accounts[0].id === bob.id);
      assert.equal(fromBob.length, 2);
      assert.ok(fromBob.every((c: any) => c.unread));
      assert.deepEqual(
        fromBob.map((c: any) => c.last_status.id).sort(),
        bobs.map((c: any) => c.last_status.id).sort(),
      );
      // From now on bob's messages come straight in.
      const next = await dm(bob, "@alice thanks");
      assert.equal((await conversations(alice))[0], `${next.id} unread [bob]`);
    });

    await t.step("dismiss: the held messages never come in", async () => {
      const first = await dm(dave, "@alice hi");
      await ok(
        alice,
        "POST",
        `/api/v1/notifications/requests/${(await requestFrom(alice, dave)).id}/dismiss`,
      );
      const before = await conversations(alice);
      assert.ok(!before.some((c) => c.includes("dave")));
      // A new message is held again; accepting it brings only that one.
      const second = await dm(dave, "@alice hello?", { in_reply_to_id: first.id });
      assert.deepEqual(await conversations(alice), before);
      await ok(
        alice,
        "POST",
        `/api/v1/notifications/requests/${(await requestFrom(alice, dave)).id}/accept`,
      );
      assert.equal((await conversations(alice))[0], `${second.id} unread [dave]`);
      assert.ok(!(await conversations(alice)).some((c) => c.startsWith(first.id)));
    });

    await t.step("a dropped message never comes in", async () => {
      await ok(alice, "PATCH", "/api/v2/notifications/policy", { for_private_mentions: "drop" });
      const gina = await f.user("gina");
      const before = await conversations(alice);
      await dm(gina, "@alice hey");
      assert.deepEqual(await conversations(alice), before);
      assert.equal(await requestFrom(alice, gina), undefined);
      await ok(alice, "PATCH", "/api/v2/notifications/policy", { for_private_mentions: "filter" });
    });

    await t.step("deleting the latest message does not fall back on a held one", async () => {
      const e1 = await dm(erin, "@alice @frank hi both");
      const key = `[erin,frank]`;
      assert.equal((await conversations(alice))[0], `${e1.id} unread ${key}`);
      // Frank is a stranger to alice: his answer (to erin, not to alice) is held for her.
      const f1 = await dm(frank, "@alice @erin hi", { in_reply_to_id: e1.id });
      assert.equal((await conversations(alice))[0], `${e1.id} unread ${key}`);
      assert.equal((await conversations(erin))[0], `${f1.id} unread [alice,frank]`);
      const e2 = await dm(erin, "@alice @frank anyway", { in_reply_to_id: f1.id });
      assert.equal((await conversations(alice))[0], `${e2.id} unread ${key}`);
      await ok(erin, "DELETE", `/api/v1/statuses/${e2.id}`);
      assert.equal((await conversations(alice))[0], `${e1.id} unread ${key}`);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
