/**
 * The reach of a local account's own changes (db/queries/account_reach.ts,
 * Mastodon's AccountReachFinder) across two instances over https: a
 * suspension's actor Update and an account deletion reach a server where
 * nobody follows the account, because the account mentioned someone there
 * or favourited one of their posts.
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { accounts } from "../../db/schema/mod.ts";
import type { TestInstance } from "../harness.ts";
import { test } from "../harness.ts";
import { callJson, postStatus } from "../fixtures/api.ts";
import { arrived, closeAll, startPair } from "../fixtures/federation.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { deleteLocalAccount } from "../../actors/moderation/local_users.ts";
import { staff } from "./admin_fixture.ts";

async function accountRow(instance: TestInstance, id: string) {
  const [row] = await instance.rookery.ctx.database.db.select().from(accounts)
    .where(eq(accounts.id, id));
  return row;
}

test("suspension and deletion reach servers that are not followers", async (t) => {
  const { a, b } = await startPair();
  try {
    const frank = await createUser(a, "frank");
    const gil = await createUser(a, "gil");
    const adminA = await staff(a, "adah", "admin");
    const bea = await createUser(b, "bea");

    await t.step("a suspension's Update reaches the account it mentioned", async () => {
      const mention = await postStatus(a, frank, `hello @bea@${b.domain}`);
      const onB = await arrived(b, mention.uri);
      const frankOnB = onB.accountId;
      const before = await accountRow(b, frankOnB);
      assert.equal(before.followersCount, 0, "nobody on B follows frank");
      assert.equal(before.suspendedAt, null);

      const res = await callJson(a, adminA, "POST", `/api/v1/admin/accounts/${frank.id}/action`, {
        type: "suspend",
        send_email_notification: false,
      });
      assert.equal(res.status, 200);
      const row = await eventually("the suspension on B", async () => {
        const row = await accountRow(b, frankOnB);
        return row.suspendedAt ? row : null;
      });
      assert.equal(row.suspensionOrigin, "remote");
    });

    await t.step("a deletion reaches the author of a status it favourited", async () => {
      const post = await postStatus(b, bea, "a post on B");
      const found = await callJson(
        a,
        gil,
        "GET",
        `/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(post.uri)}`,
      );
      assert.equal(found.status, 200);
      assert.equal(found.body.statuses.length, 1);
      const onA = found.body.statuses[0].id;
      assert.equal(
        (await callJson(a, gil, "POST", `/api/v1/statuses/${onA}/favourite`)).status,
        200,
      );
      const gilOnB = await eventually("the favourite on B", async () => {
        const res = await callJson(b, bea, "GET", `/api/v1/statuses/${post.id}/favourited_by`);
        return res.body.length === 1 ? res.body[0].id as string : null;
      });
      assert.equal((await accountRow(b, gilOnB)).deletedAt, null);

      await deleteLocalAccount(a.rookery.ctx.database.db, "gil");
      await eventually("the deletion on B", async () => {
        const row = await accountRow(b, gilOnB);
        return row.deletedAt != null || row.suspendedAt != null;
      });
    });
  } finally {
    await closeAll(a, b);
  }
});
