/**
 * BENCH_ONLY=home: the two hottest paths alone, as server CPU time per
 * request (the figure that holds on a shared machine): the home timeline
 * (`limit=40`) and posting by an account with 100 local followers, each at
 * full speed for BENCH_SECONDS. The CPU of a post includes what the server
 * does after answering (until it is quiet again).
 *
 * BENCH_COMPARE_MAIN=/other/checkout/main.ts runs that build's server and
 * this one's (or BENCH_SERVER_MAIN's) in turn on the same data,
 * BENCH_ROUNDS rounds each (default 3), so a before/after comparison sees
 * the same load. BENCH_STATEMENTS=1 also counts the SQL statements per
 * request, from the server's Prometheus endpoint (METRICS_BIND), over 100
 * sequential requests of each kind after the timed runs; a build without
 * that endpoint prints none.
 */
import autocannon from "autocannon";
import type { AloneOptions, AloneResult } from "./alone.ts";
import type { Seeded } from "./seed.ts";
import type { Row } from "./rows.ts";
import { inTurn, serverMain } from "./in_turn.ts";
import { freePort } from "./process.ts";
import { cpuMs } from "./streaming.ts";

/** What one server measured in one round. */
interface HomeRound {
  main: string;
  round: number;
  home: { perSecond: number; cpuMs: number; errors: number };
  post: { perSecond: number; cpuMs: number; errors: number };
  /** SQL statements per request (BENCH_STATEMENTS=1), when the build counts them. */
  statements?: { home: number; post: number };
}

const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 20);
const STATEMENTS = Deno.env.get("BENCH_STATEMENTS") === "1";
const POST_BODY =
  "status=Benchmark%20post%20with%20a%20%23hashtag%20and%20a%20link%20https%3A%2F%2Fexample.com%2F";

/** The server's CPU once it has been quiet (under 10 ms in 500 ms) for a moment. */
async function quietCpu(pid: number): Promise<number> {
  let last = cpuMs(pid);
  for (let i = 0; i < 60; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuMs(pid);
    if (now - last < 10) return now;
    last = now;
  }
  return last;
}

/** Statements run so far, by the server's db.client.operation.duration histogram. */
async function statementsSoFar(metricsUrl: string): Promise<number | null> {
  try {
    const text = await (await fetch(metricsUrl)).text();
    let n = 0;
    for (const line of text.split("\n")) {
      if (/^db_client_operation_duration\w*_count\b/.test(line)) {
        n += Number(line.slice(line.lastIndexOf(" ") + 1));
      }
    }
    return n;
  } catch {
    return null;
  }
}

/** Statements per request over `count` sequential requests. */
async function statementsPer(
  metricsUrl: string,
  request: { url: string; method?: string; headers: Record<string, string>; body?: string },
  count = 100,
): Promise<number> {
  const before = await statementsSoFar(metricsUrl);
  for (let i = 0; i < count; i++) {
    const res = await fetch(request.url, request);
    await res.arrayBuffer();
  }
  const after = await statementsSoFar(metricsUrl);
  return before === null || after === null ? NaN : (after - before) / count;
}

/** autocannon at full speed for SECONDS, with the server's CPU per 2xx answer. */
async function fullSpeed(
  pid: number,
  options: Record<string, unknown>,
): Promise<HomeRound["home"]> {
  const before = cpuMs(pid);
  const result = await autocannon({ duration: SECONDS, ...options });
  const after = await quietCpu(pid);
  const ok = result["2xx"];
  return {
    perSecond: Math.round(ok / SECONDS),
    cpuMs: (after - before) / Math.max(1, ok),
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/** One round on a fresh server of `main`. */
async function measure(
  o: AloneOptions,
  tokens: Seeded,
  main: string,
  round: number,
): Promise<HomeRound> {
  const metricsPort = STATEMENTS ? freePort() : 0;
  const server = await o.start(freePort(), {
    main: serverMain(main),
    env: STATEMENTS ? { METRICS_BIND: `127.0.0.1:${metricsPort}` } : {},
  });
  try {
    // The instance actor's keys are made at start (seconds of CPU): wait for them.
    const actor = await fetch(`${server.url}/actor`, {
      headers: { accept: "application/activity+json" },
    });
    await actor.body?.cancel();
    const home = {
      url: `${server.url}/api/v1/timelines/home?limit=40`,
      headers: { authorization: `Bearer ${tokens.viewerToken}` },
    };
    const post = {
      url: `${server.url}/api/v1/statuses`,
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.posterToken}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: POST_BODY,
    };
    await autocannon({ ...home, duration: 2, connections: 4 }); // warm caches and plans
    await autocannon({ ...post, duration: 1, connections: 4 });
    await quietCpu(server.pid);
    o.log(`${o.database}: ${main} round ${round}: home timeline, full speed`);
    const homeFigures = await fullSpeed(server.pid, { ...home, connections: 32 });
    o.log(`${o.database}: ${main} round ${round}: posting, full speed`);
    const postFigures = await fullSpeed(server.pid, { ...post, connections: 16 });
    const result: HomeRound = { main, round, home: homeFigures, post: postFigures };
    if (STATEMENTS) {
      const metrics = `http://127.0.0.1:${metricsPort}/metrics`;
      result.statements = {
        home: await statementsPer(metrics, home),
        post: await statementsPer(metrics, post),
      };
    }
    o.log(
      `${o.database}: ${main} round ${round}: home ${homeFigures.cpuMs.toFixed(2)} ms CPU, ` +
        `post ${postFigures.cpuMs.toFixed(2)} ms CPU per request`,
    );
    return result;
  } finally {
    await server.stop();
  }
}

/** The home and posting rounds, this build (and BENCH_COMPARE_MAIN's) in turn. */
export async function runHome(o: AloneOptions): Promise<AloneResult> {
  const rounds = await inTurn((main, round) => measure(o, o.tokens, main, round));
  const rows: Row[] = rounds.flatMap((r) => [{
    database: o.database,
    scenario: `home limit=40 max (${r.main}, round ${r.round})`,
    requestsPerSecond: r.home.perSecond,
    p50: NaN,
    p99: NaN,
    errors: r.home.errors,
  }, {
    database: o.database,
    scenario: `POST status (100 followers) max (${r.main}, round ${r.round})`,
    requestsPerSecond: r.post.perSecond,
    p50: NaN,
    p99: NaN,
    errors: r.post.errors,
  }]);
  return { rows, print: () => printHome(o.database, rounds) };
}

function printHome(database: string, rounds: HomeRound[]): void {
  const f = (n: number | undefined) => n === undefined || Number.isNaN(n) ? "" : n.toFixed(2);
  console.log(`\nServer CPU per request, ${database} (${SECONDS} s at full speed each):\n`);
  console.log(
    "| server | round | home/s | home CPU ms | home statements | posts/s | post CPU ms | post statements |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rounds) {
    console.log(
      `| ${r.main} | ${r.round} | ${r.home.perSecond} | ${f(r.home.cpuMs)} | ${
        f(r.statements?.home)
      } | ${r.post.perSecond} | ${f(r.post.cpuMs)} | ${f(r.statements?.post)} |`,
    );
  }
}
