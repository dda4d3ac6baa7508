/**
 * The real entry point (main.ts) as a self-hoster runs it: zero
 * configuration on PGlite, or DATABASE_URL; data and keys survive a restart;
 * ROLE selects what the process runs; SIGTERM stops it cleanly.
 */
import assert from "node:assert/strict";
import { MAIN, startServer } from "../fixtures/server_process.ts";
import { openDatabase } from "../../db/connection.ts";
import { createLocalAccount } from "../../actors/accounts/accounts.ts";
import { createTestDatabase, DB_KIND, PGLITE_ONLY, test } from "../harness.ts";

async function storage() {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-start-" });
  const pg = DB_KIND === "postgres" ? await createTestDatabase() : null;
  return {
    dataDir,
    env: { DATA_DIR: dataDir, ...(pg ? { DATABASE_URL: pg.url } : {}) },
    openDirect: () => openDatabase({ databaseUrl: pg?.url ?? null, pgliteDir: `${dataDir}/db` }),
    async cleanup() {
      await pg?.drop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

async function actor(origin: string, username: string) {
  const res = await fetch(`${origin}/users/${username}`, {
    headers: { Accept: "application/activity+json" },
  });
  return { status: res.status, body: res.ok ? await res.json() : await res.text() };
}

test("main.ts starts with zero configuration, keeps data and keys across restarts", async () => {
  const store = await storage();
  try {
    const first = await startServer(store.env);
    assert.equal((await actor(first.origin, "alice")).status, 404);
    assert.equal((await first.stop()).code, 0, "SIGTERM stops the server cleanly");
    if (DB_KIND === "pglite") {
      const files = [...Deno.readDirSync(store.dataDir)].map((e) => e.name);
      assert.ok(files.includes("db"), `the database lives under DATA_DIR (found ${files})`);
    }

    // Write while the server is down, as an operator's tool would.
    const direct = await store.openDirect();
    await createLocalAccount(direct.db, first.origin, {
      username: "alice",
      email: "alice@example.com",
      password: "correct horse battery",
      confirmed: true,
    });
    await direct.close();

    const second = await startServer(store.env);
    const seen = await actor(second.origin, "alice");
    assert.equal(seen.status, 200);
    assert.equal(seen.body.preferredUsername, "alice");
    const key = seen.body.publicKey.publicKeyPem;
    assert.match(key, /BEGIN PUBLIC KEY/);
    assert.equal((await second.stop()).code, 0);

    const third = await startServer(store.env);
    const again = await actor(third.origin, "alice");
    assert.equal(again.status, 200);
    assert.equal(again.body.publicKey.publicKeyPem, key, "the key pair is kept");
    assert.equal((await third.stop()).code, 0);
  } finally {
    await store.cleanup();
  }
});

test("ROLE=worker serves no HTTP; ROLE=web serves HTTP", async () => {
  const store = await storage();
  try {
    // startServer returns once the worker logs that its queue runs: had it
    // opened a port, that happens before.
    const worker = await startServer({ ...store.env, ROLE: "worker" });
    await assert.rejects(fetch(`${worker.origin}/health`), "a worker does not listen");
    assert.equal((await worker.stop()).code, 0);

    const web = await startServer({ ...store.env, ROLE: "web" });
    const res = await fetch(`${web.origin}/health`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal((await web.stop()).code, 0);
  } finally {
    await store.cleanup();
  }
});

test("a bad configuration value stops start-up with a clear message", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: { REGISTRATIONS: "sometimes", DATA_DIR: await Deno.makeTempDir() },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.match(
    new TextDecoder().decode(out.stderr),
    /REGISTRATIONS must be one of open, approval, closed/,
  );
});

// PostgreSQL is shared by design.
test(
  "a second server refuses an embedded database that another one owns",
  PGLITE_ONLY,
  async () => {
    const store = await storage();
    try {
      const first = await startServer(store.env);
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN],
        env: { ...store.env, PORT: "0", BIND: "127.0.0.1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 1);
      const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.match(said, /Another Rookery process \(pid \d+\) is using/);
      // The first server is unharmed.
      const res = await fetch(`${first.origin}/health`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      assert.equal((await first.stop()).code, 0);
    } finally {
      await store.cleanup();
    }
  },
);
