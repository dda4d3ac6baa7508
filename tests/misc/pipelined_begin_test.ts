/**
 * Transactions on PostgreSQL with BEGIN sent along with their first
 * statement (db/pipelined_begin.ts) keep what postgres.js's own `begin`
 * guaranteed: a transaction commits its writes; a callback that throws
 * leaves nothing; a statement that failed inside fails the transaction even
 * when the callback caught its error; a nested transaction rolls back
 * alone; concurrent transactions do not see each other's writes before
 * COMMIT. PostgreSQL only (PGlite's transactions are its own).
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/connection.ts";
import { RolledBackError } from "../../db/pipelined_begin.ts";
import { createTestDatabase, POSTGRES_ONLY, test } from "../harness.ts";

test("pipelined BEGIN: commit, rollback, caught failures, savepoints", POSTGRES_ONLY, async (t) => {
  const pg = await createTestDatabase();
  const database = await openDatabase({ databaseUrl: pg.url, pgliteDir: "memory://" });
  const { db } = database;
  const values = async () =>
    (await database.rows<{ v: string }>(sql`SELECT v FROM pipelined ORDER BY v`)).map((r) => r.v);
  try {
    await database.rows(sql`CREATE TABLE pipelined (v text PRIMARY KEY)`);

    await t.step("writes are committed; the result is returned", async () => {
      const result = await db.transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO pipelined VALUES ('a')`);
        await tx.execute(sql`INSERT INTO pipelined VALUES ('b')`);
        return 42;
      });
      assert.equal(result, 42);
      assert.deepEqual(await values(), ["a", "b"]);
    });

    await t.step("a callback that throws leaves nothing", async () => {
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.execute(sql`INSERT INTO pipelined VALUES ('c')`);
          throw new Error("changed my mind");
        }),
        /changed my mind/,
      );
      assert.deepEqual(await values(), ["a", "b"]);
    });

    await t.step("a failed statement whose error was caught still fails it", async () => {
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.execute(sql`INSERT INTO pipelined VALUES ('d')`);
          await tx.execute(sql`INSERT INTO pipelined VALUES ('a')`).catch(() => {});
        }),
        RolledBackError,
      );
      assert.deepEqual(await values(), ["a", "b"]);
    });

    await t.step("a nested transaction rolls back alone", async () => {
      await db.transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO pipelined VALUES ('e')`);
        await assert.rejects(tx.transaction(async (inner) => {
          await inner.execute(sql`INSERT INTO pipelined VALUES ('f')`);
          throw new Error("inner");
        }));
        await tx.transaction(async (inner) => {
          await inner.execute(sql`INSERT INTO pipelined VALUES ('g')`);
        });
      });
      assert.deepEqual(await values(), ["a", "b", "e", "g"]);
    });

    await t.step("uncommitted writes are not seen elsewhere", async () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => release = resolve);
      let wrote = () => {};
      const written = new Promise<void>((resolve) => wrote = resolve);
      const open = db.transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO pipelined VALUES ('h')`);
        wrote();
        await held;
      });
      await written;
      assert.deepEqual(await values(), ["a", "b", "e", "g"]);
      release();
      await open;
      assert.deepEqual(await values(), ["a", "b", "e", "g", "h"]);
    });
  } finally {
    await database.close();
    await pg.drop();
  }
});
