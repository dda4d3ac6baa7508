/**
 * The admin command line while a server runs on the same DATA_DIR (and
 * DATABASE_URL): commands go through the server's admin socket and act on the
 * server's own database, which the test reads directly to check the effects.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { and, eq, isNull } from "drizzle-orm";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { accounts, follows, oauthAccessTokens, users } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { findLocalUser } from "../../actors/accounts/accounts.ts";
import { findAccessToken } from "../../actors/oauth/tokens.ts";
import { listRules } from "../../actors/moderation/instance_rules.ts";
import { cli, type CliTarget, expectCode } from "./cli.ts";

async function withServer(
  env: Record<string, string>,
  fn: (server: TestInstance, target: CliTarget) => Promise<void>,
): Promise<void> {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-admin-" });
  // Files, not memory: the socket and (on PGlite) the database live in dataDir.
  const server = await startInstance({
    dataDir,
    memory: false,
    worker: false,
    adminSocket: true,
    env,
  });
  try {
    await fn(server, { dataDir, databaseUrl: server.databaseUrl, env });
  } finally {
    await server.close({ destroy: true });
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

async function userState(server: TestInstance, username: string) {
  const row = await findLocalUser(server.rookery.ctx.database.db, username);
  assert.ok(row, `no user ${username}`);
  return row.user;
}

test("admin CLI through a running server: approval, states, roles, delete", async () => {
  await withServer({ REGISTRATIONS: "approval" }, async (server, target) => {
    const db = server.rookery.ctx.database.db;
    const socketMode = (await Deno.stat(join(target.dataDir, "admin.sock"))).mode! & 0o777;
    assert.equal(socketMode, 0o600);
    assert.equal(
      (await Deno.readTextFile(join(target.dataDir, "rookery.pid"))).trim(),
      String(Deno.pid),
    );

    // Approval mode: an account created without --approved waits like a sign-up.
    const bob = await cli(target, "account", "create", "bob", "--email", "bob@example.com");
    expectCode(bob, 0);
    assert.match(bob.stdout, /pending approval/);
    assert.equal((await userState(server, "bob")).approved, false);
    const carol = await cli(
      target,
      "account",
      "create",
      "carol",
      "--email",
      "carol@example.com",
      "--password",
      "correct horse battery",
      "--role",
      "moderator",
      "--confirmed",
      "--approved",
    );
    expectCode(carol, 0);
    assert.doesNotMatch(carol.stdout, /Password:/); // a given password is not echoed
    const carolUser = await userState(server, "carol");
    assert.equal(carolUser.role, "moderator");
    assert.ok(carolUser.confirmedAt && carolUser.approved);

    expectCode(await cli(target, "account", "approve", "bob"), 0);
    expectCode(await cli(target, "account", "disable", "bob"), 0);
    assert.equal((await userState(server, "bob")).approved, true);
    assert.equal((await userState(server, "bob")).disabled, true);
    const list = await cli(target, "account", "list", "--json");
    expectCode(list, 0);
    const listed = JSON.parse(list.stdout);
    assert.deepEqual(
      listed.map((u: any) => [u.username, u.role, u.confirmed, u.approved, u.disabled]),
      [["bob", "user", false, true, true], ["carol", "moderator", true, true, false]],
    );
    const enabled = await cli(target, "account", "enable", "bob");
    expectCode(enabled, 0);
    assert.equal(enabled.stdout, "Enabled @bob.\n");
    assert.equal((await userState(server, "bob")).disabled, false);

    // Follows both ways with carol and from a remote account, with their counters.
    const bobAccount = (await findLocalUser(db, "bob"))!.account;
    const carolAccount = (await findLocalUser(db, "carol"))!.account;
    const [remote] = await db.insert(accounts).values({
      id: newId(),
      username: "dave",
      domain: "remote.example",
      uri: "https://remote.example/users/dave",
      followingCount: 1,
    }).returning();
    await db.insert(follows).values([
      { id: newId(), accountId: carolAccount.id, targetAccountId: bobAccount.id },
      { id: newId(), accountId: bobAccount.id, targetAccountId: carolAccount.id },
      { id: newId(), accountId: remote.id, targetAccountId: bobAccount.id },
    ]);
    await db.update(accounts).set({ followersCount: 1, followingCount: 1 })
      .where(eq(accounts.id, carolAccount.id));
    await db.update(accounts).set({ followersCount: 2, followingCount: 1, displayName: "Bob" })
      .where(eq(accounts.id, bobAccount.id));
    const bobToken = await cli(target, "token", "create", "bob", "--scopes", "read");
    expectCode(bobToken, 0);

    const deleted = await cli(target, "account", "delete", "bob");
    expectCode(deleted, 0);
    assert.match(deleted.stdout, /Deleted @bob \(removed 3 follows\)/);
    const [tombstone] = await db.select().from(accounts).where(eq(accounts.id, bobAccount.id));
    assert.ok(tombstone.deletedAt);
    assert.equal(tombstone.displayName, "");
    assert.equal(
      (await db.select().from(users).where(eq(users.accountId, bobAccount.id))).length,
      0,
    );
    assert.equal(
      (await db.select().from(oauthAccessTokens).where(isNull(oauthAccessTokens.revokedAt)))
        .length,
      0,
      "the deleted user's token went with the users row",
    );
    assert.equal((await db.select().from(follows)).length, 0);
    const [carolAfter] = await db.select().from(accounts).where(eq(accounts.id, carolAccount.id));
    assert.equal(carolAfter.followersCount, 0);
    assert.equal(carolAfter.followingCount, 0);
    const [remoteAfter] = await db.select().from(accounts).where(eq(accounts.id, remote.id));
    assert.equal(remoteAfter.followingCount, 0);

    // The name stays taken, and the deleted account is gone from every command.
    const again = await cli(target, "account", "create", "bob", "--email", "bob2@example.com");
    expectCode(again, 1);
    assert.match(again.stderr, /username is already taken/);
    const gone = await cli(target, "account", "reset-password", "bob");
    expectCode(gone, 1);
    assert.equal(gone.stderr, "Error: No local account named @bob\n");

    const role = await cli(target, "account", "role", "carol", "admin");
    expectCode(role, 0);
    assert.equal((await userState(server, "carol")).role, "admin");
  });
});

test("admin CLI through a running server: tokens, password reset, rules, hostile input", async () => {
  await withServer({}, async (server, target) => {
    const db = server.rookery.ctx.database.db;
    expectCode(
      await cli(target, "account", "create", "erin", "--email", "erin@example.com", "--confirmed"),
      0,
    );
    const token = await cli(
      target,
      "token",
      "create",
      "erin",
      "--scopes",
      "read write:statuses admin:read:accounts",
    );
    expectCode(token, 0);
    assert.equal(token.stderr, "");
    const row = await findAccessToken(db, token.last);
    assert.ok(row, "the printed token works");
    assert.deepEqual(row.scopes, ["read", "write:statuses", "admin:read:accounts"]);
    assert.equal(row.userId, (await userState(server, "erin")).id);
    const [stored] = await db.select().from(oauthAccessTokens)
      .where(eq(oauthAccessTokens.id, row.id));
    assert.notEqual(stored.tokenHash, token.last);

    const reset = await cli(target, "account", "reset-password", "erin");
    expectCode(reset, 0);
    assert.match(reset.stdout, /revoked 1 access token/);
    assert.equal(await findAccessToken(db, token.last), null);

    const reserved = await cli(
      target,
      "account",
      "create",
      "support",
      "--email",
      "support@example.com",
      "--allow-reserved",
    );
    expectCode(reserved, 0);
    assert.equal((await userState(server, "support")).role, "user");

    const missing = await cli(target, "token", "create", "nobody", "--scopes", "read");
    expectCode(missing, 1);
    assert.match(missing.stderr, /No local account named @nobody/);

    const added = await cli(target, "rule", "add", "Be kind", "--hint", "No harassment.");
    expectCode(added, 0);
    const id = added.stdout.match(/Added rule (\d+)\./)?.[1];
    assert.ok(id, added.stdout);
    expectCode(await cli(target, "rule", "add", "No spam"), 0);
    const rules = await cli(target, "rule", "list", "--json");
    expectCode(rules, 0);
    assert.deepEqual(
      JSON.parse(rules.stdout).map((r: any) => [r.text, r.hint]),
      [["Be kind", "No harassment."], ["No spam", ""]],
    );
    expectCode(await cli(target, "rule", "remove", id), 0);
    assert.deepEqual((await listRules(db)).map((r) => r.text), ["No spam"]);
    const noRule = await cli(target, "rule", "remove", id);
    expectCode(noRule, 1);
    assert.match(noRule.stderr, /No rule with id/);
    const blank = await cli(target, "rule", "add", "   ");
    expectCode(blank, 1);
    assert.match(blank.stderr, /text can't be blank/);

    // Odd and oversized input gets a clear message, never a stack trace or raw escapes.
    const escape = await cli(target, "account", "disable", "x\x1b[2J\x07");
    expectCode(escape, 1);
    assert.equal(escape.stderr, "Error: No local account named @x?[2J?\n");
    const huge = await cli(target, "account", "create", "a".repeat(5000), "--email", "a@b.example");
    expectCode(huge, 1);
    assert.match(huge.stderr, /username is too long/);
    const controlEmail = await cli(
      target,
      "account",
      "create",
      "zed",
      "--email",
      "z\x1b@b.example",
    );
    expectCode(controlEmail, 1);
    assert.match(controlEmail.stderr, /email is invalid/);
    const unknownOption = await cli(target, "account", "list", "--everything");
    expectCode(unknownOption, 2);
    assert.match(unknownOption.stderr, /Unknown option --everything\nUsage: .*account list/);

    // A malformed request on the socket is answered, and the server keeps serving.
    const conn = await Deno.connect({
      transport: "unix",
      path: join(target.dataDir, "admin.sock"),
    });
    await conn.write(new TextEncoder().encode('{"argv": [1, 2]}\n'));
    const answer = JSON.parse(new TextDecoder().decode(await new Response(conn.readable).bytes()));
    assert.equal(answer.exitCode, 2);
    const list = await cli(target, "account", "list");
    expectCode(list, 0);
    assert.match(list.stdout, /^erin\s/m);
    assert.match(list.stdout, /^support\s/m);
    assert.equal(
      (await db.select().from(users).where(and(eq(users.email, "erin@example.com")))).length,
      1,
    );
  });
});
