/**
 * How statements reach the database (db/connection.ts, db/pglite_prepared.ts):
 * drizzle's queries run as prepared statements with generic plans on both
 * databases, and that must not change what they do: results, errors, the
 * isolation of a transaction from statements outside it, DDL on a table a
 * statement reads, and (on PGlite) NOTIFY delivery, rows read without
 * PGlite's protocol parser (db/pglite_replies.ts) and a bounded cache.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { protocol } from "@electric-sql/pglite";
import { type Database, openDatabase } from "../../db/connection.ts";
import { bindExecuteSync } from "../../db/pglite_bind.ts";
import { createTestDatabase, DB_KIND, PGLITE_ONLY, test } from "../harness.ts";
import { eventually } from "../fixtures/wait.ts";

const pglite = DB_KIND === "pglite";

/** The database error code behind a drizzle error. */
function code(error: unknown): string | undefined {
  const e = error as { code?: string; cause?: { code?: string } };
  return e.code ?? e.cause?.code;
}

test("statements run prepared with generic plans and behave as before", async (t) => {
  const pg = pglite ? null : await createTestDatabase();
  const database: Database = await openDatabase({
    databaseUrl: pg?.url ?? null,
    pgliteDir: "memory://",
  });
  const rows = database.rows.bind(database);
  try {
    await database.db.execute(sql`CREATE TABLE probe (id int PRIMARY KEY, body text)`);

    await t.step(
      "a repeated query gives each call's own answer, from one generic plan",
      async () => {
        for (let i = 1; i <= 20; i++) {
          await database.db.execute(sql`INSERT INTO probe (id, body) VALUES (${i}, ${`row ${i}`})`);
        }
        for (const n of [3, 7, 12]) {
          const found = await rows<{ id: number; body: string }>(
            sql`SELECT id, body FROM probe WHERE id > ${n} ORDER BY id LIMIT 2`,
          );
          assert.deepEqual(found, [{ id: n + 1, body: `row ${n + 1}` }, {
            id: n + 2,
            body: `row ${n + 2}`,
          }]);
        }
        assert.deepEqual(await rows(sql`SHOW plan_cache_mode`), [{
          plan_cache_mode: "force_generic_plan",
        }]);
        if (pglite) {
          // PGlite is one session: its prepared statements are visible here.
          const [stmt] = await rows<{ generic_plans: string; custom_plans: string }>(sql`
          SELECT generic_plans::text, custom_plans::text FROM pg_prepared_statements
          WHERE statement LIKE 'SELECT id, body FROM probe WHERE id > $1%'`);
          assert.ok(stmt, "the query is a named prepared statement");
          assert.ok(Number(stmt.generic_plans) >= 3, `generic plans: ${stmt.generic_plans}`);
          assert.equal(stmt.custom_plans, "0");
        }
      },
    );

    await t.step("an error keeps its code, and the next statements run", async () => {
      await assert.rejects(
        database.db.execute(sql`INSERT INTO probe (id, body) VALUES (${1}, ${"again"})`),
        (error) => code(error) === "23505",
      );
      await assert.rejects(
        database.db.execute(sql`SELECT id FROM probe WHERE id = ${"not a number"}`),
        (error) => code(error) === "22P02",
      );
      assert.deepEqual(await rows(sql`SELECT body FROM probe WHERE id = ${1}`), [{
        body: "row 1",
      }]);
    });

    await t.step("a statement outside a transaction waits for it to end", async () => {
      let outside: Promise<unknown[]> | null = null;
      await assert.rejects(
        database.db.transaction(async (tx) => {
          await tx.execute(sql`INSERT INTO probe (id, body) VALUES (${100}, ${"uncommitted"})`);
          assert.equal((await rows(sql`SELECT id FROM probe WHERE id = ${100}`, tx)).length, 1);
          // Issued while the transaction is open; it must not run inside it.
          outside = rows(sql`SELECT id FROM probe WHERE id >= ${100}`);
          // The session answers in the order it is asked: once a later
          // statement of the transaction has run, the one outside has asked
          // too, and without waiting for the transaction it would run (and
          // see row 100) before the ROLLBACK, which asks after it.
          await rows(sql`SELECT 1 AS later`, tx);
          throw new Error("roll back");
        }),
        /roll back/,
      );
      assert.deepEqual(await outside, []);
      // An error inside a transaction rolls it back and leaves the session usable.
      await assert.rejects(database.db.transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO probe (id, body) VALUES (${101}, ${"first"})`);
        await tx.execute(sql`INSERT INTO probe (id, body) VALUES (${1}, ${"duplicate"})`);
      }));
      assert.deepEqual(await rows(sql`SELECT id FROM probe WHERE id >= ${100}`), []);
      await database.db.transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO probe (id, body) VALUES (${102}, ${"kept"})`);
      });
      assert.deepEqual(await rows(sql`SELECT id FROM probe WHERE id >= ${100}`), [{ id: 102 }]);
    });

    await t.step(
      "a statement reading a table whose columns changed sees the new ones",
      async () => {
        const read = () => rows(sql`SELECT * FROM probe WHERE id = ${2}`);
        assert.deepEqual(await read(), [{ id: 2, body: "row 2" }]);
        await database.db.execute(sql`ALTER TABLE probe ADD COLUMN extra text DEFAULT 'x'`);
        assert.deepEqual(await read(), [{ id: 2, body: "row 2", extra: "x" }]);
      },
    );

    await t.step({
      name: "PGlite: NOTIFY reaches listeners, in and out of transactions",
      ...PGLITE_ONLY,
      fn: async () => {
        const heard: string[] = [];
        await database.pglite!.listen("probe_channel", (payload) => heard.push(payload));
        await database.db.execute(sql`SELECT pg_notify('probe_channel', ${"outside"})`);
        await database.db.transaction(async (tx) => {
          await tx.execute(sql`SELECT pg_notify('probe_channel', ${"inside"})`);
        });
        await eventually("both notifications", () => Promise.resolve(heard.length >= 2));
        assert.deepEqual(heard, ["outside", "inside"]);
      },
    });

    await t.step({
      name: "PGlite: rows are read from the raw reply, not by PGlite's protocol parser",
      ...PGLITE_ONLY,
      fn: async () => {
        const query = sql`SELECT id, body FROM probe WHERE id <= ${3} ORDER BY id`;
        await rows(query); // prepared now (a prepare's reply goes through PGlite's parser)
        const parser = protocol.Parser.prototype;
        const parse = parser.parse;
        let parsed = 0;
        parser.parse = function (...args) {
          parsed++;
          return parse.apply(this, args);
        };
        try {
          for (let i = 0; i < 20; i++) {
            const found = await rows<{ id: number; body: string | null }>(query);
            assert.deepEqual(found.map((r) => r.id), [1, 2, 3]);
          }
        } finally {
          parser.parse = parse;
        }
        assert.equal(parsed, 0);
      },
    });

    await t.step({
      name: "PGlite: the statement cache stays bounded",
      ...PGLITE_ONLY,
      fn: async () => {
        // Queries with IN lists of every length are distinct texts.
        for (let n = 1; n <= 300; n++) {
          const ids = Array.from({ length: n }, (_, i) => i + 1);
          const found = await rows<{ count: number }>(
            sql`SELECT count(*)::int AS count FROM probe WHERE id <= 20 AND id IN ${ids}`,
          );
          assert.equal(found[0].count, Math.min(n, 20));
        }
        await rows(sql`SELECT 1 AS one`); // closes the evicted statements
        const [{ count }] = await rows<{ count: number }>(
          sql`SELECT count(*)::int AS count FROM pg_prepared_statements`,
        );
        assert.ok(count <= 260, `${count} prepared statements`);
      },
    });
  } finally {
    await database.close();
    await pg?.drop();
  }
});

test("an execution's Bind, Execute and Sync are the bytes PGlite writes", PGLITE_ONLY, () => {
  const { serialize } = protocol;
  const cases: [string, (string | null)[]][] = [
    ["rookery_1", []],
    ["rookery_12", [null, "", "plain"]],
    ["rookery_345", ["é ü ✓ 🐘 \u0000 x", '{"a":[1,2]}', null, "x".repeat(70_000)]],
    ["rookery_9", ["\ud800 lone surrogate", "end"]],
  ];
  for (const [statement, values] of cases) {
    const theirs = [serialize.bind({ statement, values }), serialize.execute({}), serialize.sync()];
    const expected = new Uint8Array(theirs.reduce((n, part) => n + part.length, 0));
    let at = 0;
    for (const part of theirs) {
      expected.set(part, at);
      at += part.length;
    }
    assert.deepEqual(bindExecuteSync(statement, values), expected, statement);
  }
});
