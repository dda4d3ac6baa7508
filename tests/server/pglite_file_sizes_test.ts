/**
 * PGlite on a data directory remembers its files' sizes (db/pglite_fs.ts):
 * a relation's size is asked of the file once, not at every seek to its
 * end, and stays what the file on disk says through growth, VACUUM's
 * truncation, TRUNCATE, VACUUM FULL and a restart.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { sql } from "drizzle-orm";
import { type Database, openDatabase } from "../../db/connection.ts";
import { PGLITE_ONLY, test } from "../harness.ts";

/** Opens PGlite on `dir` as the server does. */
function open(dir: string): Promise<Database> {
  return openDatabase({ databaseUrl: null, pgliteDir: dir });
}

/** `fs.fstatSync` calls (NODEFS's way to a file's size) while `fn` runs. */
async function fstats(fn: () => Promise<void>): Promise<number> {
  const original = fs.fstatSync;
  let calls = 0;
  fs.fstatSync = ((...args: Parameters<typeof fs.fstatSync>) => {
    calls++;
    return original(...args);
  }) as typeof fs.fstatSync;
  try {
    await fn();
  } finally {
    fs.fstatSync = original;
  }
  return calls;
}

/** The relation's size by PostgreSQL (a seek to its end) and by the file on disk. */
async function sizes(database: Database, dir: string, table: string) {
  const [row] = await database.rows<{ size: string; path: string }>(
    sql`SELECT pg_relation_size(${table})::text AS size, pg_relation_filepath(${table}) AS path`,
  );
  return { postgres: Number(row.size), disk: (await Deno.stat(`${dir}/${row.path}`)).size };
}

test("PGlite asks a file's size once, and it stays the file's size", PGLITE_ONLY, async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "rookery-pglite-fs-" });
  try {
    let database = await open(dir);
    const rows = database.rows.bind(database);
    try {
      await rows(sql`CREATE TABLE sized (id int, body text)`);
      await rows(sql`INSERT INTO sized SELECT i, repeat('x', 200) FROM generate_series(1, 5000) i`);

      await t.step("scans seek to the end of the table without a stat each", async () => {
        await rows(sql`SELECT count(*) FROM sized`);
        const calls = await fstats(async () => {
          for (let i = 0; i < 50; i++) {
            const [row] = await rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM sized`);
            assert.equal(row.n, 5000);
          }
        });
        assert.ok(calls < 10, `${calls} fstat calls for 50 scans`);
      });

      await t.step("the size follows growth, truncation and rewrites", async () => {
        const check = async (step: string) => {
          const { postgres, disk } = await sizes(database, dir, "sized");
          assert.equal(postgres, disk, `after ${step}`);
          return postgres;
        };
        const grown = await check("the insert");
        await rows(
          sql`INSERT INTO sized SELECT i, repeat('y', 200) FROM generate_series(1, 5000) i`,
        );
        assert.ok(await check("growing") > grown);
        // VACUUM gives the empty pages at the end back to the file system.
        await rows(sql`DELETE FROM sized WHERE id > 100 OR body LIKE 'y%'`);
        await rows(sql`VACUUM sized`);
        assert.ok(await check("VACUUM's truncation") < grown);
        await rows(
          sql`INSERT INTO sized SELECT i, repeat('z', 200) FROM generate_series(1, 3000) i`,
        );
        await check("growing again");
        await rows(sql`VACUUM FULL sized`);
        await check("VACUUM FULL");
        await rows(sql`TRUNCATE sized`);
        assert.equal(await check("TRUNCATE"), 0);
        await rows(
          sql`INSERT INTO sized SELECT i, repeat('w', 200) FROM generate_series(1, 2000) i`,
        );
        await check("the last insert");
      });

      await t.step("a restart reads what was written", async () => {
        await database.close();
        database = await open(dir);
        const [row] = await database.rows<{ n: number; w: number }>(
          sql`SELECT count(*)::int AS n, count(*) FILTER (WHERE body LIKE 'w%')::int AS w FROM sized`,
        );
        assert.deepEqual(row, { n: 2000, w: 2000 });
        const { postgres, disk } = await sizes(database, dir, "sized");
        assert.equal(postgres, disk);
      });
    } finally {
      await database.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
