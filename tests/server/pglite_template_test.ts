/**
 * A fresh embedded database starts from the migrated cluster cached under
 * PGLITE_TEMPLATE_CACHE (db/pglite_template.ts): made once, then copied
 * into each empty data directory, every copy a database of its own; a data
 * directory that holds anything is never written; a cache file naming a
 * path outside the data directory is refused.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/connection.ts";
import { loadConfig } from "../../config.ts";
import { extractTar, seedCluster, templateName } from "../../db/pglite_template.ts";
import { startServer } from "../fixtures/server_process.ts";
import { PGLITE_ONLY, test } from "../harness.ts";

const MIGRATIONS = new URL("../../db/migrations/meta/_journal.json", import.meta.url);

async function migrationCount(dir: string, cache: string | null): Promise<number> {
  const db = await openDatabase({ databaseUrl: null, pgliteDir: dir, templateCache: cache });
  try {
    const [row] = await db.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM rookery_migrations`,
    );
    return row.n;
  } finally {
    await db.close();
  }
}

test("fresh data directories start from one cached, migrated cluster", PGLITE_ONLY, async () => {
  const root = await Deno.makeTempDir({ prefix: "rookery-template-" });
  const cache = join(root, "cache");
  const journal = JSON.parse(await Deno.readTextFile(MIGRATIONS)).entries.length;
  try {
    // The first opens builds the template and caches it…
    assert.equal(await migrationCount(join(root, "a", "db"), cache), journal);
    const cached = [...Deno.readDirSync(cache)].map((e) => e.name);
    assert.deepEqual(cached, [await templateName()]);
    // …the next one copies it: no build asked for.
    const source = await seedCluster(join(root, "b", "db"), cache, () => {
      throw new Error("the cached template should have been used");
    });
    assert.equal(source, "cache");
    assert.equal(await migrationCount(join(root, "b", "db"), cache), journal);

    // Each copy is a database of its own.
    const a = await openDatabase({ databaseUrl: null, pgliteDir: join(root, "a", "db") });
    await a.rows(sql`CREATE TABLE only_in_a (x int)`);
    await a.close();
    const b = await openDatabase({ databaseUrl: null, pgliteDir: join(root, "b", "db") });
    const [row] = await b.rows<{ t: string | null }>(sql`SELECT to_regclass('only_in_a') AS t`);
    await b.close();
    assert.equal(row.t, null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

test("a data directory holding anything is not seeded", PGLITE_ONLY, async () => {
  const root = await Deno.makeTempDir({ prefix: "rookery-template-" });
  try {
    const dir = join(root, "db");
    await Deno.mkdir(dir);
    await Deno.writeTextFile(join(dir, "stray"), "an operator's file");
    // PGlite itself then refuses or initialises it; the template is never written over it.
    await openDatabase({ databaseUrl: null, pgliteDir: dir, templateCache: join(root, "c") })
      .then((db) => db.close(), () => {});
    assert.equal(await Deno.readTextFile(join(dir, "stray")), "an operator's file");
    assert.ok(!(await exists(join(root, "c"))), "no template was built for it");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

test("a cached template naming a path outside the data directory is refused", async () => {
  const root = await Deno.makeTempDir({ prefix: "rookery-template-" });
  try {
    await assert.rejects(
      extractTar(tarOf("../escaped", "x"), join(root, "db")),
      /Unexpected entry/,
    );
    assert.ok(!(await exists(join(root, "escaped"))));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

test(
  "main.ts on two fresh data directories: the second from the cache, keys of its own",
  PGLITE_ONLY,
  async () => {
    const root = await Deno.makeTempDir({ prefix: "rookery-template-" });
    const env = (name: string) => ({
      DATA_DIR: join(root, name),
      PGLITE_TEMPLATE_CACHE: join(root, "cache"),
      LOG_LEVEL: "error",
    });
    try {
      const keys = [];
      for (const name of ["one", "two"]) {
        const server = await startServer(env(name));
        const res = await fetch(`${server.origin}/actor`, {
          headers: { Accept: "application/activity+json" },
        });
        keys.push((await res.json()).publicKey.publicKeyPem);
        assert.equal((await server.stop()).code, 0);
      }
      assert.equal([...Deno.readDirSync(join(root, "cache"))].length, 1);
      assert.notEqual(keys[0], keys[1], "instance keys are made per database, never copied");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);

test("PGLITE_TEMPLATE_CACHE: a directory, off, or the user's cache directory", () => {
  const cache = (env: Record<string, string>) => loadConfig(env).pgliteTemplateCache;
  assert.equal(cache({ HOME: "/home/r" }), "/home/r/.cache/rookery");
  assert.equal(cache({ HOME: "/home/r", XDG_CACHE_HOME: "/var/cache/r" }), "/var/cache/r/rookery");
  assert.equal(cache({ HOME: "/home/r", PGLITE_TEMPLATE_CACHE: "/srv/t" }), "/srv/t");
  assert.equal(cache({ HOME: "/home/r", PGLITE_TEMPLATE_CACHE: "OFF" }), null);
  assert.equal(cache({}), null, "no home: no cache");
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** A one-file ustar archive. */
function tarOf(name: string, content: string): Uint8Array {
  const data = new TextEncoder().encode(content);
  const header = new Uint8Array(512);
  header.set(new TextEncoder().encode(name), 0);
  header.set(new TextEncoder().encode(data.length.toString(8).padStart(11, "0")), 124);
  header[156] = "0".charCodeAt(0);
  const out = new Uint8Array(512 + 512 + 1024);
  out.set(header, 0);
  out.set(data, 512);
  return out;
}
