/**
 * The rate-limit scenario of `deno task bench` (PostgreSQL; BENCH_ONLY=limits
 * alone): a cheap API call with rate limits on, from many client addresses
 * far from their limits, behind a trusted proxy: throughput, and rows
 * written to the counter table per request (pg_stat_user_tables).
 */
import autocannon from "autocannon";
import postgres from "postgres";
import type { Row } from "./rows.ts";

/** Each client address makes this many requests: far from the 300 limit. */
const REQUESTS_PER_ADDRESS = 200;

/** Rows inserted or updated in rate_limit_counters so far (statistics lag ~1 s). */
async function counterWrites(sql: postgres.Sql): Promise<number> {
  await new Promise((r) => setTimeout(r, 1500));
  const [row] = await sql`SELECT n_tup_ins + n_tup_upd AS n FROM pg_stat_user_tables
    WHERE relname = 'rate_limit_counters'`;
  return Number(row?.n ?? 0);
}

/** A cheap API call with rate limits on, from many addresses: throughput and writes. */
export async function rateLimitScenario(
  env: Record<string, string>,
  databaseUrl: string,
  seconds: number,
  startServer: (env: Record<string, string>) => Promise<{ url: string; stop(): Promise<void> }>,
): Promise<Row> {
  const server = await startServer({ ...env, RATE_LIMITS: "on", TRUST_PROXY: "true" });
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    let sent = 0;
    // Public addresses, each used for REQUESTS_PER_ADDRESS requests in turn.
    const address = () => {
      const n = Math.floor(sent++ / REQUESTS_PER_ADDRESS);
      return `11.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
    };
    const target = {
      url: `${server.url}/api/v1/instance/translation_languages`,
      connections: 32,
      requests: [{
        setupRequest: (req: { headers?: Record<string, string> }) => ({
          ...req,
          headers: { ...req.headers, "x-forwarded-for": address() },
        }),
      }],
    };
    await autocannon({ ...target, duration: 3 }); // warm up
    const before = await counterWrites(sql);
    const result = await autocannon({ ...target, duration: seconds });
    const written = await counterWrites(sql) - before;
    return {
      database: "PostgreSQL",
      scenario: "API call, rate limits on, 200 req/address max",
      requestsPerSecond: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts + result.non2xx,
      writesPerRequest: Math.round(written / result.requests.total * 1000) / 1000,
    };
  } finally {
    await sql.end();
    await server.stop();
  }
}
