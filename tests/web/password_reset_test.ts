/**
 * Password reset through e-mail, over HTTP: the same answer for known and
 * unknown addresses, the mailed link, setting a new password (which ends
 * every session and revokes every token), the token working once and for
 * an hour only, forged posts, and the per-address rate limit.
 */
import assert from "node:assert/strict";
import { count, eq } from "drizzle-orm";
import { users, webSessions } from "../../db/schema/mod.ts";
import { startInstance, test } from "../harness.ts";
import { createUser, TEST_PASSWORD } from "../fixtures/users.ts";
import { mailFiles } from "../accounts/helpers.ts";
import { signInOverHttp } from "../admin_web/http_session.ts";
import { checkPassword } from "../../actors/auth/sessions.ts";
import { openForm, resetLink } from "./helpers.ts";

const NEW_PASSWORD = "a brand new password";
const instance = await startInstance({ env: { RATE_LIMITS: "on" } });
const db = instance.rookery.ctx.database.db;
const alice = await createUser(instance, "alice");
await createUser(instance, "bob");

function includes(text: string, part: string): void {
  assert.ok(text.includes(part), `expected ${JSON.stringify(part)} in ${JSON.stringify(text)}`);
}

const mailsTo = async (address: string) =>
  (await mailFiles(instance)).filter((m) => m.includes(`To: ${address}`));

/** Asks for a reset of `email` and returns the answer's text. */
async function ask(email: string): Promise<{ status: number; text: string }> {
  const browser = await openForm(instance, "/auth/password/new");
  const res = await browser.post("/auth/password", { email });
  return { status: res.status, text: await res.text() };
}

/** The token of the newest reset mail to `address`. */
async function latestToken(address: string): Promise<string> {
  const mails = await mailsTo(address);
  return new URL(resetLink(mails[mails.length - 1])).searchParams.get("reset_password_token")!;
}

test("password reset through e-mail", async (t) => {
  await t.step(
    "known and unknown addresses get the same answer; only one gets a mail",
    async () => {
      const known = await ask("ALICE@example.com");
      const unknown = await ask("nobody@example.com");
      assert.equal(known.status, 200);
      assert.equal(unknown.status, 200);
      // The same page but for the form token each fresh browser got.
      assert.equal(
        known.text.replace(/value="[^"]+"/g, ""),
        unknown.text.replace(/value="[^"]+"/g, ""),
      );
      includes(known.text, "If your e-mail address exists");
      assert.equal((await mailsTo("alice@example.com")).length, 1);
      assert.equal((await mailsTo("nobody@example.com")).length, 0);
      // Only the hash is kept.
      const token = await latestToken("alice@example.com");
      const [row] = await db.select({ hash: users.resetPasswordTokenHash }).from(users)
        .where(eq(users.id, alice.userId));
      assert.ok(row.hash && row.hash !== token);
    },
  );

  await t.step("a forged post is refused and mails nothing", async () => {
    const before = (await mailsTo("bob@example.com")).length;
    const res = await instance.request("/auth/password", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: "bob@example.com", authenticity_token: "forged" }),
    });
    assert.equal(res.status, 403);
    await res.body?.cancel();
    assert.equal((await mailsTo("bob@example.com")).length, before);
  });

  await t.step("the link sets a new password, ends sessions and revokes tokens, once", async () => {
    const session = await signInOverHttp(instance, "alice", "/auth/sign_up/done");
    const token = await latestToken("alice@example.com");
    const browser = await openForm(
      instance,
      `/auth/password/edit?reset_password_token=${encodeURIComponent(token)}`,
    );
    // A mismatch is refused and leaves the token usable.
    const mismatch = await browser.post("/auth/password/edit", {
      reset_password_token: token,
      password: NEW_PASSWORD,
      password_confirmation: "something else",
    });
    assert.equal(mismatch.status, 422);
    includes(await mismatch.text(), "Password confirmation doesn&#39;t match Password");
    // A forged post (no form token of this browser) is refused.
    const forged = await instance.request("/auth/password/edit", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        reset_password_token: token,
        password: "attacker chosen password",
        password_confirmation: "attacker chosen password",
        authenticity_token: browser.token,
      }),
    });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();

    const res = await browser.post("/auth/password/edit", {
      reset_password_token: token,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    });
    assert.equal(res.status, 200);
    includes(await res.text(), "Your password has been changed");
    assert.equal((await checkPassword(db, "alice", NEW_PASSWORD)).ok, true);
    assert.equal((await checkPassword(db, "alice", TEST_PASSWORD)).ok, false);
    // The old token answers 401, the old session is gone.
    const api = await instance.request("/api/v1/accounts/verify_credentials", {
      headers: { authorization: `Bearer ${alice.token}` },
    });
    assert.equal(api.status, 401);
    await api.body?.cancel();
    const [sessions] = await db.select({ n: count() }).from(webSessions)
      .where(eq(webSessions.userId, alice.userId));
    assert.equal(sessions.n, 0);
    assert.ok(session.cookie);

    // Used up: the link and the form both refuse it now.
    const again = await browser.get(
      `/auth/password/edit?reset_password_token=${encodeURIComponent(token)}`,
    );
    assert.equal(again.status, 404);
    includes(await again.text(), "invalid or has expired");
    const reuse = await browser.post("/auth/password/edit", {
      reset_password_token: token,
      password: "yet another password",
      password_confirmation: "yet another password",
    });
    assert.equal(reuse.status, 404);
    await reuse.body?.cancel();
    assert.equal((await checkPassword(db, "alice", NEW_PASSWORD)).ok, true);
  });

  await t.step("a token older than an hour no longer works; junk tokens neither", async () => {
    await ask("bob@example.com");
    const token = await latestToken("bob@example.com");
    const bob = await db.select({ id: users.id }).from(users)
      .where(eq(users.email, "bob@example.com"));
    await db.update(users).set({ resetPasswordSentAt: new Date(Date.now() - 61 * 60 * 1000) })
      .where(eq(users.id, bob[0].id));
    const browser = await openForm(instance, "/auth/password/new");
    const expired = await browser.get(
      `/auth/password/edit?reset_password_token=${encodeURIComponent(token)}`,
    );
    assert.equal(expired.status, 404);
    await expired.body?.cancel();
    const post = await browser.post("/auth/password/edit", {
      reset_password_token: token,
      password: NEW_PASSWORD,
      password_confirmation: NEW_PASSWORD,
    });
    assert.equal(post.status, 404);
    await post.body?.cancel();
    assert.equal((await checkPassword(db, "bob", TEST_PASSWORD)).ok, true);
    for (const junk of ["", "x".repeat(5000), "\u0000", "%"]) {
      const res = await browser.get(
        `/auth/password/edit?reset_password_token=${encodeURIComponent(junk)}`,
      );
      assert.equal(res.status, 404, JSON.stringify(junk.slice(0, 10)));
      await res.body?.cancel();
    }
  });

  await t.step("more than 5 requests for one address in 30 minutes answer 429", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await ask("Carol@Example.com")).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
  });
});
