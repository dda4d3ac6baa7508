/**
 * `allowed_mentions` on POST /api/v1/statuses (Mastodon 4.5): a status that
 * would mention accounts outside the list is refused with 422, Mastodon's
 * message and the accounts as `unexpected_accounts`, and nothing is written
 * or notified. Without the parameter nothing is checked.
 */
import assert from "node:assert/strict";
import { and, eq } from "drizzle-orm";
import { notifications, statuses } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { callJson } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";

const REFUSAL = "Post would be sent to unexpected accounts";

test("allowed_mentions refuses a post that would reach unexpected accounts", async (t) => {
  const instance = await startInstance();
  try {
    const db = instance.rookery.ctx.database.db;
    const alice = await createUser(instance, "alice");
    const bob = await createUser(instance, "bob");
    const carol = await createUser(instance, "carol");
    const count = async () =>
      (await db.select({ id: statuses.id }).from(statuses)
        .where(eq(statuses.accountId, alice.id))).length;
    const post = (body: Record<string, unknown>) =>
      callJson(instance, alice, "POST", "/api/v1/statuses", body);

    await t.step("a mention outside the list: 422 with the accounts, nothing written", async () => {
      const res = await post({ status: "@bob @carol hello", allowed_mentions: [bob.id] });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.error, REFUSAL);
      assert.equal(res.body.unexpected_accounts.length, 1);
      const [shown] = res.body.unexpected_accounts;
      assert.equal(shown.id, carol.id);
      assert.equal(shown.acct, "carol");
      assert.equal(shown.username, "carol");
      assert.equal(typeof shown.url, "string", "a whole Account entity");
      assert.equal(await count(), 0);
      const notes = await db.select().from(notifications)
        .where(and(eq(notifications.accountId, carol.id), eq(notifications.type, "mention")));
      assert.equal(notes.length, 0);
    });

    await t.step("several unexpected accounts, in the order written", async () => {
      const res = await post({ status: "@carol @bob hi", allowed_mentions: [] });
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.unexpected_accounts.map((a: any) => a.id), [carol.id, bob.id]);
    });

    await t.step("every mention allowed, or no list at all: posted", async () => {
      const allowed = await post({
        status: "@bob @carol hi",
        allowed_mentions: [bob.id, carol.id],
      });
      assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
      assert.deepEqual(
        allowed.body.mentions.map((m: any) => m.id).sort(),
        [bob.id, carol.id].sort(),
      );
      const free = await post({ status: "@bob @carol again" });
      assert.equal(free.status, 200);
      // An empty list allows a post without mentions; one's own mention reaches no one else.
      const none = await post({ status: "no one here, @alice", allowed_mentions: [] });
      assert.equal(none.status, 200, JSON.stringify(none.body));
      // Mastodon compares numbers: a leading zero is the same id.
      const zero = await post({ status: "@bob!", allowed_mentions: [`0${bob.id}`] });
      assert.equal(zero.status, 200, JSON.stringify(zero.body));
    });

    await t.step("form encoding (allowed_mentions[]) and odd values", async () => {
      const form = new URLSearchParams();
      form.set("status", "@bob @carol form");
      form.append("allowed_mentions[]", bob.id);
      const formed = await instance.request("/api/v1/statuses", {
        method: "POST",
        headers: {
          authorization: `Bearer ${alice.token}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: form.toString(),
      });
      const body = await formed.json();
      assert.equal(formed.status, 422, JSON.stringify(body));
      assert.deepEqual(body.unexpected_accounts.map((a: any) => a.id), [carol.id]);
      // Not an id: it allows no one.
      const junk = await post({ status: "@bob", allowed_mentions: ["bob"] });
      assert.equal(junk.status, 422);
      assert.deepEqual(junk.body.unexpected_accounts.map((a: any) => a.id), [bob.id]);
      // Oversized lists are refused before anything is resolved.
      const huge = await post({
        status: "@bob",
        allowed_mentions: Array.from({ length: 1001 }, (_, i) => String(i + 1)),
      });
      assert.equal(huge.status, 422);
      assert.match(huge.body.error, /^Validation failed: Allowed mentions/);
      // A hash in its place is a 422 of the shape, never a 500.
      const hash = await post({ status: "@bob", allowed_mentions: { x: { y: 1 } } });
      assert.equal(hash.status, 422);
    });
  } finally {
    await instance.close({ destroy: true });
  }
});
