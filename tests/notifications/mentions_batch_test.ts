/**
 * A post that mentions many local accounts: every mention notification is
 * recorded (or filtered, or dropped, as one by one), in a bounded number of
 * statements inside the posting transaction, however many accounts are
 * mentioned (it was about five per mention).
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { notificationRequests, notifications } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { callJson, ok, postStatus } from "../fixtures/api.ts";
import { statementsIn } from "../fixtures/statements.ts";
import { createAccount, createUser } from "../fixtures/users.ts";

/** Statements the posting transaction may run for a post with 50 mentions. */
const MAX_STATEMENTS = 20;

test("50 mentions: 50 notifications in a bounded number of statements; mutes, blocks and policies as before", async () => {
  const instance = await startInstance({ worker: false });
  try {
    const db = instance.rookery.ctx.database.db;
    const alice = await createUser(instance, "alice");
    const names: string[] = [];
    for (let i = 0; i < 47; i++) {
      names.push(`m${String(i).padStart(2, "0")}`);
      await createAccount(instance, names.at(-1)!);
    }
    const muter = await createUser(instance, "muter");
    const blocker = await createUser(instance, "blocker");
    const picky = await createUser(instance, "picky");
    const all = [...names, "muter", "blocker", "picky"];
    const text = all.map((n) => `@${n}`).join(" ");

    // Fifty plain mentions: fifty notifications.
    let post: any;
    const statements = await statementsIn(instance, "createStatus", async () => {
      post = await postStatus(instance, alice, text);
    });
    console.log(`posting with 50 mentions: ${statements} statements in the transaction`);
    assert.equal(post.mentions.length, 50);
    const rows = await db.select().from(notifications)
      .where(and(eq(notifications.statusId, post.id), eq(notifications.type, "mention")));
    assert.equal(rows.length, 50);
    assert.equal(new Set(rows.map((r) => r.accountId)).size, 50);
    assert.ok(rows.every((r) => r.fromAccountId === alice.id && !r.filtered && !r.groupKey));
    assert.ok(statements <= MAX_STATEMENTS, `${statements} statements`);

    // A mute, a block and a policy that filters strangers.
    await ok(instance, muter, "POST", `/api/v1/accounts/${alice.id}/mute`, {});
    await ok(instance, blocker, "POST", `/api/v1/accounts/${alice.id}/block`, {});
    await ok(instance, picky, "PUT", "/api/v2/notifications/policy", {
      for_not_following: "filter",
    });
    const second = await postStatus(instance, alice, `again ${text}`);
    const again = await db.select().from(notifications)
      .where(eq(notifications.statusId, second.id));
    const by = new Map(again.map((r) => [r.accountId, r]));
    assert.equal(again.length, 48);
    assert.equal(by.has(muter.id), false);
    assert.equal(by.has(blocker.id), false);
    assert.equal(by.get(picky.id)?.filtered, true);
    assert.equal(again.filter((r) => r.filtered).length, 1);
    const [request] = await db.select().from(notificationRequests)
      .where(eq(notificationRequests.accountId, picky.id));
    assert.equal(request.fromAccountId, alice.id);
    assert.equal(request.lastStatusId, second.id);
    // The filtered mention stays out of picky's list (the first post's is there).
    const list = await callJson(instance, picky, "GET", "/api/v1/notifications");
    assert.deepEqual(list.body.map((n: any) => n.status.id), [post.id]);
  } finally {
    await instance.close({ destroy: true });
  }
});
