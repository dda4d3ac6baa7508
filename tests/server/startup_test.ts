/**
 * The real entry point (main.ts) as a self-hoster runs it: zero
 * configuration on PGlite, or DATABASE_URL; data and keys survive a restart;
 * ROLE selects what the process runs; SIGTERM stops it cleanly.
 */
import assert from "node:assert/strict";
import { TextLineStream } from "../fixtures/lines.ts";
import { openDatabase } from "../../db/connection.ts";
import { createLocalAccount } from "../../actors/accounts.ts";
import { createTestDatabase, DB_KIND, test } from "../harness.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

interface Server {
  origin: string;
  stop(): Promise<Deno.CommandStatus>;
}

/** Resolves once the process logs `line` (a worker says when its queue runs). */
async function logged(stream: ReadableStream<Uint8Array>, line: string): Promise<void> {
  const lines = stream.pipeThrough(new TextDecoderStream()).pipeThrough(new TextLineStream());
  const reader = lines.getReader();
  const deadline = setTimeout(() => reader.cancel(), 60_000);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the process never logged "${line}"`);
      if (value.includes(line)) break;
    }
  } finally {
    clearTimeout(deadline);
  }
  // Keep draining, so the child never blocks on a full pipe.
  (async () => {
    try {
      while (!(await reader.read()).done) { /* drain */ }
    } catch { /* closed */ }
  })();
}

async function startServer(env: Record<string, string>): Promise<Server> {
  const port = freePort();
  const origin = `http://localhost:${port}`;
  const worker = env.ROLE === "worker";
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: {
      PORT: String(port),
      BIND: "127.0.0.1",
      // A worker serves nothing to poll: its log says when it is running.
      LOG_LEVEL: worker ? "info" : "warning",
      ...env,
    },
    stdout: worker ? "piped" : "null",
    stderr: "inherit",
  }).spawn();
  if (worker) {
    await logged(child.stdout, "Starting the queue worker.");
  } else {
    const deadline = Date.now() + 60_000;
    while (true) {
      try {
        const res = await fetch(`${origin}/health`);
        await res.body?.cancel();
        if (res.ok) break;
      } catch { /* not listening yet */ }
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error("server did not start");
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    origin,
    async stop() {
      child.kill("SIGTERM");
      return await child.status;
    },
  };
}

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

test("a second server refuses an embedded database that another one owns", async () => {
  if (DB_KIND !== "pglite") return; // PostgreSQL is shared by design
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
});
