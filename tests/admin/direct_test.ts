/**
 * The admin command line with no server running: it opens the database
 * itself (PGlite files under DATA_DIR, or DATABASE_URL), runs the command and
 * exits. Assertions are grouped to keep the number of subprocesses small.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { createTestDatabase, test, TEST_DATABASE_URL } from "../harness.ts";
import { openDatabase } from "../../db/connection.ts";
import { users } from "../../db/schema/mod.ts";
import { findLocalUser } from "../../actors/accounts/accounts.ts";
import { findAccessToken } from "../../actors/oauth/tokens.ts";
import { verifyPassword } from "../../actors/auth/passwords.ts";
import { cli, type CliTarget, expectCode, printedPassword } from "./cli.ts";

async function directTarget(): Promise<CliTarget & { cleanup(): Promise<void> }> {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-admin-" });
  const database = TEST_DATABASE_URL ? await createTestDatabase() : null;
  return {
    dataDir,
    databaseUrl: database?.url ?? null,
    async cleanup() {
      await database?.drop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/** Opens the database the CLI used, once no subprocess holds it. */
function openTarget(target: CliTarget) {
  return openDatabase({ databaseUrl: target.databaseUrl, pgliteDir: join(target.dataDir, "db") });
}

test("admin CLI without a server: create, validate, confirm, list, token, reset", async () => {
  const target = await directTarget();
  try {
    const created = await cli(target, "account", "create", "alice", "--email", "alice@example.com");
    expectCode(created, 0);
    assert.match(created.stdout, /Created @alice \(alice@example\.com\): role user, unconfirmed/);
    const firstPassword = printedPassword(created);
    assert.ok(firstPassword.length >= 16);

    // Every problem of one request is reported at once, readably, on stderr.
    const invalid = await cli(
      target,
      "account",
      "create",
      "admin",
      "--email",
      "not-an-email",
      "--password",
      "short",
    );
    expectCode(invalid, 1);
    assert.equal(invalid.stdout, "");
    assert.match(invalid.stderr, /username is reserved \(ERR_RESERVED\)/);
    assert.match(invalid.stderr, /email is invalid \(ERR_INVALID\)/);
    assert.match(invalid.stderr, /password is too short/);
    assert.doesNotMatch(invalid.stderr, /\n\s+at /); // no stack trace

    const taken = await cli(target, "account", "create", "ALICE", "--email", "Alice@Example.com");
    expectCode(taken, 1);
    assert.match(taken.stderr, /username is already taken/);
    assert.match(taken.stderr, /email is already taken/);

    // A development address on a host without a dot is taken here, as tootctl takes it
    // (the API's sign-up still refuses it: tests/accounts/registration_test.ts).
    const dev = await cli(target, "account", "create", "dev", "--email", "dev@localhost");
    expectCode(dev, 0);
    assert.match(dev.stdout, /Created @dev \(dev@localhost\): role user/);
    const spaced = await cli(target, "account", "create", "dev2", "--email", "dev @localhost");
    expectCode(spaced, 1);
    assert.match(spaced.stderr, /email is invalid \(ERR_INVALID\)/);

    const confirmed = await cli(target, "account", "confirm", "@alice");
    expectCode(confirmed, 0);
    assert.equal(confirmed.stdout, "Confirmed @alice.\n");

    const list = await cli(target, "account", "list");
    expectCode(list, 0);
    assert.match(list.stdout, /^USERNAME\s+EMAIL\s+ROLE\s+STATE\s+CREATED$/m);
    assert.match(list.stdout, /^alice\s+alice@example\.com\s+user\s+confirmed,approved\s+\d{4}-/m);

    const token = await cli(target, "token", "create", "alice", "--scopes", "read write:statuses");
    expectCode(token, 0);
    assert.match(token.last, /^[A-Za-z0-9_-]{40,}$/);

    const reset = await cli(target, "account", "reset-password", "alice");
    expectCode(reset, 0);
    assert.match(reset.stdout, /revoked 1 access token\./);
    const newPassword = printedPassword(reset);

    const database = await openTarget(target);
    try {
      const row = await findLocalUser(database.db, "alice");
      assert.ok(row?.user.confirmedAt);
      assert.ok(await verifyPassword(row.user.passwordHash, newPassword));
      assert.ok(!await verifyPassword(row.user.passwordHash, firstPassword));
      // Stored hashed; the reset revoked it.
      assert.equal(await findAccessToken(database.db, token.last), null);
      const [stored] = await database.db.select().from(users).where(eq(users.id, row.user.id));
      assert.equal(stored.approved, true);
    } finally {
      await database.close();
    }
  } finally {
    await target.cleanup();
  }
});

test("admin CLI usage errors exit 2 without touching the database", async () => {
  const target = { dataDir: "/nonexistent/rookery-admin", databaseUrl: null };
  const unknown = await cli(target, "frobnicate");
  expectCode(unknown, 2);
  assert.match(unknown.stderr, /Unknown command frobnicate/);
  assert.match(unknown.stderr, /account create <username>/); // the full usage follows
  assert.equal(unknown.stdout, "");

  const scope = await cli(target, "token", "create", "alice", "--scopes", "read admin");
  expectCode(scope, 2);
  assert.match(scope.stderr, /Unknown scope: admin/);

  const help = await cli(target, "help");
  expectCode(help, 0);
  for (const command of ["account create", "account reset-password", "token create", "rule add"]) {
    assert.ok(help.stdout.includes(command), command);
  }
});

test("admin CLI refuses to open PGlite under a live server whose socket is dead", async () => {
  const target = await directTarget();
  try {
    // A socket file left by a crashed server, and a pid file naming a dead process.
    const stale = Deno.listen({ transport: "unix", path: join(target.dataDir, "admin.sock") });
    stale.close();
    await Deno.writeTextFile(join(target.dataDir, "rookery.pid"), "999999999\n");
    const list = await cli(target, "account", "list");
    expectCode(list, 0);
    assert.match(list.stderr, /No local accounts/);
    await assert.rejects(Deno.lstat(join(target.dataDir, "admin.sock")), Deno.errors.NotFound);

    // This test process is alive: as far as the CLI knows, a server owns the database.
    await Deno.writeTextFile(join(target.dataDir, "rookery.pid"), `${Deno.pid}\n`);
    const refused = await cli(target, "account", "list");
    if (target.databaseUrl) {
      expectCode(refused, 0); // PostgreSQL takes any number of clients
    } else {
      expectCode(refused, 1);
      assert.match(refused.stderr, /admin socket .* does not answer/);
    }
  } finally {
    await target.cleanup();
  }
});
