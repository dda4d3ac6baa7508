/**
 * `admin backup FILE` and `admin restore FILE` of the embedded database:
 * the copy is taken through the running server's admin socket while a
 * client keeps posting, and restored into a new DATA_DIR every status is
 * there whole (a cut between transactions). On PostgreSQL both commands
 * point at pg_dump.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { PGLITE_ONLY, POSTGRES_ONLY, startInstance, test } from "../harness.ts";
import { ok, postStatus } from "../fixtures/api.ts";
import { createUser } from "../fixtures/users.ts";
import { cli, expectCode } from "./cli.ts";

const yieldToTimers = () => new Promise((resolve) => setTimeout(resolve, 0));

test("backup while posting, restore into a new data directory", PGLITE_ONLY, async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-backup-" });
  const restoredDir = await Deno.makeTempDir({ prefix: "rookery-restored-" });
  const file = join(await Deno.makeTempDir({ prefix: "rookery-backup-file-" }), "rookery.tar.gz");
  const server = await startInstance({ dataDir, memory: false, worker: false, adminSocket: true });
  const target = { dataDir, databaseUrl: null };
  const posted: { id: string; content: string }[] = [];
  try {
    const alice = await createUser(server, "alice");
    for (let i = 0; i < 3; i++) posted.push(await postStatus(server, alice, `before ${i}`));
    // A client keeps posting while the backup runs (yielding: PGlite's
    // calls resolve as microtasks and would starve the timers otherwise).
    let backingUp = true;
    const writer = (async () => {
      for (let i = 0; backingUp; i++) {
        posted.push(await postStatus(server, alice, `during ${i}`));
        await yieldToTimers();
      }
    })();
    const run = await cli(target, "backup", file);
    backingUp = false;
    await writer;
    expectCode(run, 0);
    assert.match(run.stdout, /^Wrote .*rookery\.tar\.gz: .* of database\); the server paused for/m);
    const bytes = await Deno.readFile(file);
    assert.deepEqual([bytes[0], bytes[1]], [0x1f, 0x8b], "gzip");
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);

    const again = await cli(target, "backup", file);
    expectCode(again, 1);
    assert.match(again.stderr, /exists; use --force/);
    assert.deepEqual(await Deno.readFile(file), bytes, "the first copy is untouched");

    const whileRunning = await cli(target, "restore", file);
    expectCode(whileRunning, 1);
    assert.match(whileRunning.stderr, /stop the server first/);
  } finally {
    await server.close();
  }

  const restoredTarget = { dataDir: restoredDir, databaseUrl: null };
  const restore = await cli(restoredTarget, "restore", file);
  expectCode(restore, 0);
  assert.match(restore.stdout, /^Restored .* \(1 local accounts, \d+ statuses\)\.$/m);
  const restored = await startInstance({ dataDir: restoredDir, memory: false, worker: false });
  try {
    const alice = await ok(restored, null, "GET", "/api/v1/accounts/lookup?acct=alice");
    const statuses = await ok(
      restored,
      null,
      "GET",
      `/api/v1/accounts/${alice.id}/statuses?limit=40`,
    );
    const have = new Map<string, string>(statuses.map((s: any) => [s.id, s.content]));
    // Everything posted before the backup began is there, and what is there is whole.
    for (const status of posted.slice(0, 3)) {
      assert.equal(
        (await ok(restored, null, "GET", `/api/v1/statuses/${status.id}`)).content,
        status.content,
      );
    }
    for (const [id, content] of have) {
      assert.equal(content, posted.find((p) => p.id === id)?.content, `status ${id} whole`);
    }
    // The account's counter was written in the statuses' own transactions.
    const newest = posted.findIndex((p) => p.id === statuses[0].id);
    assert.equal(alice.statuses_count, newest + 1, "counter and statuses agree");
  } finally {
    await restored.close();
  }

  const refused = await cli(restoredTarget, "restore", file);
  expectCode(refused, 1);
  assert.match(refused.stderr, /already holds a database; use --replace/);
  const replaced = await cli(restoredTarget, "restore", file, "--replace");
  expectCode(replaced, 0);
  const aside = /The previous database is in (\S+)\.$/m.exec(replaced.stdout)?.[1];
  assert.ok(aside && (await Deno.stat(join(aside, "PG_VERSION"))).isFile, "old database kept");

  const notBackup = join(restoredDir, "not-a-backup");
  await Deno.writeTextFile(notBackup, "hello");
  const bad = await cli(restoredTarget, "restore", notBackup, "--replace");
  expectCode(bad, 1);
  assert.match(bad.stderr, /not a backup/);
  // A failed restore puts the database back.
  assert.ok((await Deno.stat(join(restoredDir, "db", "PG_VERSION"))).isFile);
  for (const dir of [dataDir, restoredDir]) await Deno.remove(dir, { recursive: true });
});

test("on PostgreSQL, backup and restore point at pg_dump", POSTGRES_ONLY, async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-backup-" });
  const server = await startInstance({ dataDir, memory: false, worker: false, adminSocket: true });
  try {
    const target = { dataDir, databaseUrl: server.databaseUrl };
    for (const args of [["backup", join(dataDir, "x.tar.gz")], ["restore", "x.tar.gz"]]) {
      const run = await cli(target, ...args);
      expectCode(run, 2);
      assert.match(run.stderr, /backed up with pg_dump/);
    }
  } finally {
    await server.close({ destroy: true });
    await Deno.remove(dataDir, { recursive: true });
  }
});

test("backup needs a file", async () => {
  const run = await cli({ dataDir: "/nonexistent", databaseUrl: null }, "backup");
  expectCode(run, 2);
  assert.match(run.stderr, /Usage: deno task admin backup <file> \[--force\]/);
});
