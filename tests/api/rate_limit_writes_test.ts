/**
 * The rate limiter's common path does not write a counter row per request.
 * A trigger made by the test counts the rows written to rate_limit_counters
 * (inserts and updates) while one account and one IP each make 300 requests
 * that are all admitted, with exact headers, then the 301st is refused.
 */
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { startInstance, test, type TestInstance } from "../harness.ts";
import { createUser } from "../fixtures/users.ts";

const PINNED = new Date("2030-01-07T10:02:30.000Z");
const CHEAP = "/api/v1/instance/translation_languages";

/** Counts every row written to rate_limit_counters from now on. */
export async function countCounterWrites(a: TestInstance): Promise<() => Promise<number>> {
  const { database } = a.rookery.ctx;
  await database.rows(sql`CREATE TABLE test_counter_writes (at timestamptz DEFAULT now())`);
  await database.rows(sql.raw(`CREATE FUNCTION test_count_counter_write() RETURNS trigger
    LANGUAGE plpgsql AS $$ BEGIN INSERT INTO test_counter_writes DEFAULT VALUES; RETURN NULL; END $$`));
  await database.rows(sql`CREATE TRIGGER test_count_counter_writes
    AFTER INSERT OR UPDATE ON rate_limit_counters
    FOR EACH ROW EXECUTE FUNCTION test_count_counter_write()`);
  return async () => {
    const [row] = await database.rows<{ n: number | string }>(
      sql`SELECT count(*) AS n FROM test_counter_writes`,
    );
    return Number(row.n);
  };
}

function from(a: TestInstance, ip: string, init?: RequestInit): Promise<Response> {
  const info = {
    remoteAddr: { transport: "tcp", hostname: ip, port: 40000 },
    completed: Promise.resolve(),
  } as Deno.ServeHandlerInfo;
  return a.rookery.fetch(new Request(new URL(CHEAP, a.origin), init), info);
}

test("rate limits: 600 admitted requests write counter rows ~70 times, not 600", async () => {
  const a = await startInstance({ env: { RATE_LIMITS: "on" }, worker: false });
  // Windows are computed from this instance's clock: pinned mid-window.
  a.rookery.ctx.core.rateLimits.clock = () => new Date(PINNED);
  try {
    const { token } = await createUser(a, "writer");
    const writes = await countCounterWrites(a);
    const callers: [string, RequestInit][] = [
      ["192.0.2.40", { headers: { authorization: `Bearer ${token}` } }],
      ["192.0.2.41", {}],
    ];
    for (const [ip, init] of callers) {
      for (let i = 1; i <= 300; i++) {
        const res = await from(a, ip, init);
        assert.equal(res.status, 200, `request ${i} from ${ip}`);
        assert.equal(res.headers.get("x-ratelimit-remaining"), String(300 - i));
        await res.body?.cancel();
      }
      const over = await from(a, ip, init);
      assert.equal(over.status, 429);
      await over.body?.cancel();
    }
    const written = await writes();
    // One write per lease (up to 50 requests, a quarter of the room left),
    // then one per request in the last ~20 of the window: 37 per bucket when
    // the whole window is used up. The old limiter wrote 600.
    assert.ok(written <= 2 * 40, `${written} counter writes for 602 requests`);
  } finally {
    await a.close({ destroy: true });
  }
});
