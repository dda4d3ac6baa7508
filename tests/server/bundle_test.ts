/**
 * The bundled build `deno task start` runs (process/bundle.ts): it builds
 * from this tree, and a server started from it on fresh storage migrates its
 * database, serves the files the sources read beside themselves (the web
 * app's script, the favicon), federation documents through Fedify and the
 * API; a worker started from it runs its queue. The rest of the suite runs
 * from source: this file is what says the bundle is the same server.
 */
import assert from "node:assert/strict";
import { BUNDLE_ENTRY, ensureBundle } from "../../process/bundle.ts";
import { startEntry } from "../../process/start.ts";
import { startServer } from "../fixtures/server_process.ts";
import { createTestDatabase, DB_KIND, POSTGRES_ONLY, test } from "../harness.ts";

const ROOT = new URL("../../", import.meta.url);
const ENTRY = new URL(".build/current/bundle/main.js", ROOT).pathname;
/** What `deno task start` runs: the launcher that picks the build or the sources. */
const START = new URL("process/start.ts", ROOT).pathname;

async function storage() {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-bundle-" });
  const pg = DB_KIND === "postgres" ? await createTestDatabase() : null;
  return {
    env: { DATA_DIR: dataDir, ...(pg ? { DATABASE_URL: pg.url } : {}) },
    async cleanup() {
      await pg?.drop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

async function bytes(url: string, accept = "*/*"): Promise<Uint8Array> {
  const res = await fetch(url, { headers: { accept } });
  const body = new Uint8Array(await res.arrayBuffer());
  assert.equal(res.status, 200, `${url}: ${new TextDecoder().decode(body).slice(0, 200)}`);
  return body;
}

test("the bundled build serves what the sources serve, on a fresh database", async () => {
  const built = await ensureBundle();
  assert.match(built, /^(built|up to date)/, built);
  const store = await storage();
  try {
    const server = await startServer(store.env, START);
    try {
      const favicon = await bytes(`${server.origin}/favicon.ico`);
      assert.deepEqual(favicon, await Deno.readFile(new URL("api/static/favicon.ico", ROOT)));
      const script = await bytes(`${server.origin}/assets/rookery.js`);
      assert.deepEqual(script, await Deno.readFile(new URL("web/assets/rookery.js", ROOT)));

      const actor = JSON.parse(
        new TextDecoder().decode(
          await bytes(`${server.origin}/actor`, "application/activity+json"),
        ),
      );
      assert.equal(actor.id, `${server.origin}/actor`);
      assert.match(actor.publicKey.publicKeyPem, /BEGIN PUBLIC KEY/);

      const instance = JSON.parse(
        new TextDecoder().decode(await bytes(`${server.origin}/api/v2/instance`)),
      );
      assert.equal(instance.domain, new URL(server.origin).host);
      const page = new TextDecoder().decode(await bytes(`${server.origin}/about`));
      assert.match(page, /<html/);
    } finally {
      assert.equal((await server.stop()).code, 0, "SIGTERM stops it cleanly");
    }
  } finally {
    await store.cleanup();
  }
});

test("the bundled build's Temporal is the runtime's: no polyfill in it, its imports on the shim", async () => {
  await ensureBundle();
  const dir = new URL(".build/current/bundle/", ROOT);
  const files = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".js"));
  let shimImports = 0;
  for (const { name } of files) {
    const code = await Deno.readTextFile(new URL(name, dir));
    assert.ok(!code.includes('"@js-temporal/polyfill"'), `${name} imports the polyfill`);
    // The polyfill's classes name themselves so (Symbol.toStringTag); the runtime's are built in.
    assert.ok(!code.includes('"Temporal.ZonedDateTime"'), `${name} holds the polyfill's code`);
    shimImports += code.split('"./native_temporal.js"').length - 1;
  }
  assert.ok(shimImports > 0, "Fedify's Temporal imports point at process/native_temporal.js");
  const shim = await import(new URL("native_temporal.js", dir).href);
  assert.equal(shim.Temporal, globalThis.Temporal);
});

test("a worker started from the bundled build runs its queue", POSTGRES_ONLY, async () => {
  await ensureBundle();
  const store = await storage();
  try {
    const worker = await startServer({ ...store.env, ROLE: "worker" }, ENTRY);
    assert.equal((await worker.stop()).code, 0);
  } finally {
    await store.cleanup();
  }
});

test("the start runs from source where no build can be made", async () => {
  const source = new URL("main.ts", ROOT).href;
  assert.equal(await startEntry(() => Promise.reject(new Error("read-only file system"))), source);
  assert.equal(await startEntry(() => Promise.resolve("up to date (abc)")), BUNDLE_ENTRY);
  // Bundling fails: main.ts is run, and nothing is written for it (no entry, no `current`).
  const build = await Deno.makeTempDir({ prefix: "rookery-build-" });
  try {
    const failing = () => Promise.resolve("error: deno bundle is not available");
    assert.equal(await startEntry(() => ensureBundle({ build, bundle: failing })), source);
    const left = [...Deno.readDirSync(build)].map((e) => e.name).sort();
    assert.deepEqual(left, ["api", "assets"], "only the links every build shares");
  } finally {
    await Deno.remove(build, { recursive: true });
  }
});
