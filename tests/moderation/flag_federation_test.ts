/**
 * Reports across two instances over https, through real signed deliveries:
 * a report with `forward` on A arrives on B as a report (a Flag from A's
 * instance actor naming the account and the statuses, the comment as
 * content) and B's moderator is told; `forward_to_domains` reaches a third
 * server whose user the reported reply answers, where it becomes a report
 * too; a replayed Flag is stored once; a Flag sent by a user rather than an
 * instance actor works too; a Flag naming nothing local on B is ignored.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { accounts, reports, users } from "../../db/schema/mod.ts";
import { recordDelivery } from "../../actors/outbox/deliveries.ts";
import { receiveFlag } from "../../actors/moderation/report_filing.ts";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import {
  arrived,
  closeAll,
  followRemote,
  postSigned,
  startPair,
  storedStatus,
} from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";

async function reportsOn(instance: TestInstance, targetId: string) {
  return await instance.rookery.ctx.database.db.select().from(reports)
    .where(eq(reports.targetAccountId, targetId));
}

async function accountIdByUri(instance: TestInstance, uri: string): Promise<string | undefined> {
  const [row] = await instance.rookery.ctx.database.db.select({ id: accounts.id })
    .from(accounts).where(eq(accounts.uri, uri));
  return row?.id;
}

test("reports cross servers as Flags", async (t) => {
  const { a, b } = await startPair();
  try {
    const alice = await createUser(a, "alice");
    const bob = await createUser(b, "bob");
    const mod = await createUser(b, "mod");
    await b.rookery.ctx.database.db.update(users).set({ role: "moderator" })
      .where(eq(users.id, mod.userId));
    const bobOnA = await followRemote(a, alice, b, bob);
    const post = await postStatus(b, bob, "something rude");
    const postOnA = await arrived(a, post.uri);

    let forwarded: any;
    await t.step("forward=true sends a Flag that becomes a report over there", async () => {
      const res = await callJson(a, alice, "POST", "/api/v1/reports", {
        account_id: bobOnA,
        status_ids: [postOnA.id],
        comment: "please look at this",
        forward: true,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      forwarded = res.body;
      assert.equal(forwarded.forwarded, true);
      assert.equal(forwarded.target_account.id, bobOnA);

      const [onB] = await eventually("the report on B", async () => {
        const rows = await reportsOn(b, bob.id);
        return rows.length ? rows : null;
      });
      assert.equal(onB.uri, `${a.origin}/actor#reports/${forwarded.id}`);
      assert.deepEqual(onB.statusIds, [post.id]);
      assert.equal(onB.comment, "please look at this");
      assert.equal(onB.category, "other");
      assert.equal(onB.forwarded, false);
      // The reporter is A's instance actor, not alice: her name stays on A.
      const instanceActorOnB = await accountIdByUri(b, `${a.origin}/actor`);
      assert.ok(instanceActorOnB);
      assert.equal(onB.accountId, instanceActorOnB);

      const list = await callJson(b, mod, "GET", "/api/v1/notifications?types[]=admin.report");
      assert.equal(list.status, 200);
      assert.equal(list.body.length, 1);
      assert.equal(list.body[0].report.id, onB.id);
      assert.equal(list.body[0].report.target_account.id, bob.id);
      assert.equal(list.body[0].report.comment, "please look at this");
    });

    await t.step("a replayed Flag is stored once", async () => {
      // The relay sends the very same Flag again (same id).
      await a.rookery.ctx.database.db.transaction(async (tx) => {
        await recordDelivery(tx, "reportForwarded", forwarded.id);
      });
      // And the same activity handed to the command twice stores nothing new.
      const [stored] = await reportsOn(b, bob.id);
      const again = await receiveFlag(b.rookery.ctx, {
        senderId: stored.accountId!,
        uri: stored.uri,
        targetAccountIds: [bob.id],
        statusIds: [],
        comment: "replayed",
      });
      assert.deepEqual(again, []);
      // A Flag from a user (below) arrives after the replay was queued; by
      // then the replay has had its turn in B's inbox queue too.
    });

    await t.step("a Flag sent by a user, and one naming nothing local", async () => {
      const nothingLocal = await postSigned(a, alice, `${b.origin}/inbox`, {
        id: `${a.origin}/users/alice#flags/nothing`,
        type: "Flag",
        actor: `${a.origin}/users/alice`,
        object: [`${a.origin}/users/alice`, "https://elsewhere.example/users/x"],
        content: "names nothing of B",
      });
      assert.ok(nothingLocal >= 200 && nothingLocal < 300, `status ${nothingLocal}`);
      const status = await postSigned(a, alice, `${b.origin}/users/bob/inbox`, {
        id: `${a.origin}/users/alice#flags/1`,
        type: "Flag",
        actor: `${a.origin}/users/alice`,
        object: [`${b.origin}/users/bob`, post.uri, `${a.origin}/users/alice`],
        content: "from a person",
      });
      assert.ok(status >= 200 && status < 300, `status ${status}`);
      const fromUser = await eventually("the user's Flag on B", async () => {
        const rows = await reportsOn(b, bob.id);
        return rows.find((r) => r.uri === `${a.origin}/users/alice#flags/1`);
      });
      assert.equal(fromUser.accountId, await accountIdByUri(b, `${a.origin}/users/alice`));
      assert.deepEqual(fromUser.statusIds, [post.id]);
      assert.equal(fromUser.comment, "from a person");

      const rows = await reportsOn(b, bob.id);
      assert.equal(rows.length, 2, "the replayed instance Flag added nothing");
      const [nothing] = await b.rookery.ctx.database.db.select().from(reports)
        .where(eq(reports.uri, `${a.origin}/users/alice#flags/nothing`));
      assert.equal(nothing, undefined);
      // Alice is remote on B: a Flag naming her is not a report of her.
      const aliceOnB = await accountIdByUri(b, `${a.origin}/users/alice`);
      assert.equal((await reportsOn(b, aliceOnB!)).length, 0);
      // B's moderator was told once: bob's first report is still open.
      const list = await callJson(b, mod, "GET", "/api/v1/notifications?types[]=admin.report");
      assert.equal(list.body.length, 1);
    });

    await t.step("forward_to_domains reaches the server of the account replied to", async () => {
      const c = await startInstance({ tls: true });
      try {
        const carol = await createUser(c, "carol");
        await followRemote(b, bob, c, carol);
        const original = await postStatus(c, carol, "an innocent question");
        const originalOnB = await arrived(b, original.uri);
        const reply = await postStatus(b, bob, `@carol@${c.domain} a rude answer`, {
          in_reply_to_id: originalOnB.id,
        });
        const replyOnC = await arrived(c, reply.uri);
        const replyOnA = await arrived(a, reply.uri);
        // A knows whom the reply answers (it fetched the parent from C).
        await eventually("carol stored on A", async () => {
          const row = await storedStatus(a, reply.uri);
          return row?.inReplyToAccountId;
        });
        const res = await callJson(a, alice, "POST", "/api/v1/reports", {
          account_id: bobOnA,
          status_ids: [replyOnA.id],
          comment: "rude to carol",
          forward: true,
          forward_to_domains: [c.domain.toUpperCase()],
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.forwarded, false, "bob's own server was not asked for");
        const [onC] = await eventually("the report on C", async () => {
          const rows = await reportsOn(c, replyOnC.accountId);
          return rows.length ? rows : null;
        });
        assert.equal(onC.uri, `${a.origin}/actor#reports/${res.body.id}`);
        assert.deepEqual(onC.statusIds, [replyOnC.id]);
        assert.equal(onC.comment, "rude to carol");
        assert.equal(onC.accountId, await accountIdByUri(c, `${a.origin}/actor`));
        // Carol's server has no moderator: the report waits for the admin API.
        const onB = await reportsOn(b, bob.id);
        assert.ok(onB.every((r) => r.uri !== onC.uri), "B was not sent this one");
      } finally {
        await c.close({ destroy: true });
      }
    });

    await t.step("a report without forward stays home", async () => {
      const res = await callJson(a, alice, "POST", "/api/v1/reports", {
        account_id: bobOnA,
        comment: "local only",
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.forwarded, false);
      const [row] = await a.rookery.ctx.database.db.select().from(reports)
        .where(and(eq(reports.id, res.body.id), eq(reports.forwarded, false)));
      assert.ok(row);
      assert.deepEqual(row.forwardToDomains, []);
    });
  } finally {
    await closeAll(a, b);
  }
});
