/**
 * Two web processes (main.ts, ROLE=web) on one PostgreSQL database share the
 * rate limits exactly: of 330 requests from one client, spread at random
 * over both and sent ten at a time, exactly 300 are admitted, although each
 * process admits most of its share from quota it leased ahead without a
 * write (counted here by a trigger on the counter table).
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/connection.ts";
import { createTestDatabase, POSTGRES_ONLY, test } from "../harness.ts";
import { type Server, startServer } from "../fixtures/server_process.ts";

const startWeb = (env: Record<string, string>) => startServer({ ROLE: "web", ...env });

const CHEAP = "/api/v1/instance/translation_languages";
const WINDOW_MS = 5 * 60 * 1000;

test(
  "rate limits: two ROLE=web processes admit exactly 300 of 330 requests",
  POSTGRES_ONLY,
  async () => {
    const pg = await createTestDatabase();
    const dataDir = await Deno.makeTempDir({ prefix: "rookery-limits-" });
    const env = { DATABASE_URL: pg.url, DATA_DIR: dataDir, RATE_LIMITS: "on", TRUST_PROXY: "true" };
    const first = await startWeb(env);
    const second = await startWeb(env);
    const direct = await openDatabase({ databaseUrl: pg.url, pgliteDir: "", migrate: false });
    try {
      await direct.rows(sql`CREATE TABLE test_counter_writes (at timestamptz DEFAULT now())`);
      await direct.rows(sql.raw(`CREATE FUNCTION test_count_counter_write() RETURNS trigger
      LANGUAGE plpgsql AS $$ BEGIN INSERT INTO test_counter_writes DEFAULT VALUES; RETURN NULL; END $$`));
      await direct.rows(sql`CREATE TRIGGER test_count_counter_writes
      AFTER INSERT OR UPDATE ON rate_limit_counters
      FOR EACH ROW EXECUTE FUNCTION test_count_counter_write()`);
      /** 330 requests from `ip` spread over both, then one more to each; null if a window ended meanwhile. */
      const burst = async (ip: string) => {
        const window = Math.floor(Date.now() / WINDOW_MS);
        const statuses: number[] = [];
        const ask = async (server: Server) => {
          const res = await fetch(`${server.origin}${CHEAP}`, {
            headers: { "x-forwarded-for": ip },
          });
          await res.body?.cancel();
          return res.status;
        };
        for (let batch = 0; batch < 33; batch++) {
          statuses.push(
            ...await Promise.all(
              Array.from({ length: 10 }, () => ask(Math.random() < 0.5 ? first : second)),
            ),
          );
        }
        const after = [await ask(first), await ask(second)];
        return Math.floor(Date.now() / WINDOW_MS) === window ? { statuses, after } : null;
      };
      // The servers' clock is the real one: a run that a 5-minute window's
      // end cut in two is run again from another address (fresh buckets);
      // a run takes seconds, so the second is whole.
      let run = await burst("198.51.100.77");
      if (!run) {
        await direct.rows(sql`DELETE FROM test_counter_writes`);
        run = await burst("198.51.100.78");
      }
      assert.ok(run, "two runs in a row were cut by a window's end");
      const { statuses, after } = run;
      assert.equal(statuses.filter((s) => s === 200).length, 300, statuses.join(","));
      assert.equal(statuses.filter((s) => s === 429).length, 30);
      assert.deepEqual(after, [429, 429]);
      const [row] = await direct.rows<{ n: number | string }>(
        sql`SELECT count(*) AS n FROM test_counter_writes`,
      );
      // The old limiter wrote once per request: 332.
      assert.ok(Number(row.n) < 100, `${row.n} counter writes for 332 requests`);
    } finally {
      await direct.close();
      assert.equal((await first.stop()).code, 0);
      assert.equal((await second.stop()).code, 0);
      await pg.drop();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  },
);
