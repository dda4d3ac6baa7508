/**
 * The e-mail digest (Mastodon 4.7 newsletters): a public post of an account
 * with confirmed subscribers schedules one digest; the worker mails it with
 * the post (not the account's private posts or replies to others, which
 * schedule nothing), the list headers and an unsubscribe link, and records
 * what it sent. Waits on the mail file, not on time (EMAIL_DIGEST_DELAY=0).
 */
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { eventually } from "../fixtures/wait.ts";
import { emailDigests, emailSubscriptions, roleSettings, users } from "../../db/schema/mod.ts";
import { setServerSetting } from "../../actors/settings/server_settings.ts";
import { mailFiles } from "./helpers.ts";

function unfold(mail: string): string {
  return mail.replace(/=\r?\n/g, "").replace(/=3D/g, "=").replace(/\r?\n[ \t]+/g, " ");
}

test("e-mail digest: a public post is mailed to confirmed subscribers", async () => {
  const instance = await startInstance({
    env: { EMAIL_SUBSCRIPTIONS: "true", EMAIL_DIGEST_DELAY: "0", EMAIL_DIGEST_MIN_INTERVAL: "0" },
  });
  try {
    const { db } = instance.rookery.ctx.database;
    const [alice, bob] = await Promise.all([
      createUser(instance, "alice"),
      createUser(instance, "bob"),
    ]);
    await setServerSetting(db, "email_subscriptions", true);
    await db.update(roleSettings).set({ emailSubscriptions: true })
      .where(eq(roleSettings.role, "user"));
    await db.update(users).set({ settings: { email_subscriptions_enabled: true } })
      .where(eq(users.accountId, alice.id));
    await db.insert(emailSubscriptions).values([
      { id: "1", accountId: alice.id, email: "reader@example.com", confirmedAt: new Date(0) },
      { id: "2", accountId: alice.id, email: "pending@example.com" },
    ]);
    // Neither of these schedules a digest, nor is listed in one.
    await postStatus(instance, alice, { status: "Only followers", visibility: "private" });
    const bobs = await postStatus(instance, bob, "Bob speaks");
    await ok(instance, alice, "POST", "/api/v1/statuses", {
      status: "@bob an answer",
      in_reply_to_id: bobs.id,
    });
    assert.equal((await db.select().from(emailDigests)).length, 0);
    const post = await postStatus(instance, alice, "Hello <subscribers>");

    const mail = unfold(
      await eventually("the digest mail", async () => (await mailFiles(instance))[0]),
    );
    assert.match(mail, /^To: reader@example\.com$/m);
    assert.match(mail, /^Subject: New post from alice$/m);
    assert.match(mail, /^Precedence: bulk$/m);
    assert.match(
      mail,
      /^List-Unsubscribe: <https?:\/\/.*\/email_subscriptions\/unsubscribe\?token=/m,
    );
    assert.ok(mail.includes("Hello <subscribers>"), mail);
    assert.ok(mail.includes(`/@alice/${post.id}`), mail);
    assert.ok(!mail.includes("Only followers") && !mail.includes("an answer"));
    const [digest] = await eventually("the digest recorded", async () => {
      const rows = await db.select().from(emailDigests);
      return rows[0]?.lastStatusId ? rows : null;
    });
    assert.equal(digest.lastStatusId, post.id);
    assert.equal(digest.dueAt, null);
    assert.equal((await mailFiles(instance)).length, 1, "the pending address gets nothing");
  } finally {
    await instance.close({ destroy: true });
  }
});
