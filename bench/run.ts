/**
 * `deno task bench`: seeds the benchmark data set on each database, starts
 * the real server (main.ts) against it, drives it with autocannon over
 * loopback, and prints one table.
 *
 * Scenarios:
 * - home timeline (`limit=40`) at a fixed offered rate (p50/p99, open loop:
 *   bench/paced.ts) and at full speed (maximum throughput);
 * - the web app's signed-in home page (`GET /` with a session cookie, 40
 *   posts) likewise, then the server CPU per request of the API's home and
 *   the page, back to back (bench/web.ts);
 * - status creation by an account with 100 local followers: throughput;
 * - on PostgreSQL, a cheap API call with rate limits on, from many clients
 *   far from their limits (bench/limits.ts): throughput, and counter rows
 *   written per request, the limiter's whole cost there.
 *
 * Environment: BENCH_DB (`pglite`, `postgres` or `both`, default both),
 * BENCH_STATUSES (default 1,000,000), BENCH_SECONDS per scenario (default 20),
 * BENCH_RATE for the fixed-rate run (default 200 requests/s),
 * BENCH_DATABASE_URL to use an existing PostgreSQL server, BENCH_ONLY=limits
 * to run the rate limit scenario alone, BENCH_ONLY=search for the status
 * search scenario alone (bench/search.ts: statuses with words, p50/p95/p99
 * of GET /api/v2/search per query; BENCH_DB=postgres BENCH_ONLY=search;
 * BENCH_SEARCH_CLIENTS clients back to back, default 1), BENCH_ONLY=streaming
 * for the streaming scenario alone (bench/streaming.ts; BENCH_STREAM_SOCKETS,
 * default 1,000, BENCH_STREAM_POSTS, default 50, BENCH_STREAM_INTERVAL ms,
 * default 200, BENCH_STREAM_WORKERS, BENCH_STREAM_CLIENT `native` (C; the
 * default) or `websocket`: its header says more; BENCH_STREAM_TRACE=<file>
 * writes each post's times as JSON lines). Part of the default run on
 * PostgreSQL (about a minute, own server).
 *
 * Also on both databases (and alone with BENCH_ONLY=cheap): GET
 * /api/v1/accounts/verify_credentials at full speed against a Deno + Hono
 * hello-world (bench/hello.ts), the ratio printed; signed Create(Note)
 * deliveries from a fake remote server (bench/inbound.ts, BENCH_INBOX_*:
 * SHAPE, SIGNED=ld a Linked Data signature on each note as Mastodon signs
 * public ones, FOLLOWERS local followers of the sender; BENCH_STATEMENTS=1
 * counts statements on PostgreSQL: bench/statements.ts);
 * idle RSS of a fresh server after 100 requests; on PGlite, `deno task
 * start` on a fresh data directory to its first answer (BENCH_STARTS runs,
 * default 3) (bench/process.ts). BENCH_ONLY=verify or BENCH_ONLY=inbound:
 * those alone (with the ceiling, RSS and start-up).
 *
 * Alone, each on a server of its own (bench/alone.ts): BENCH_ONLY=day, a
 * day's mix for BENCH_DAY_USERS active users (default 1,000) at
 * BENCH_DAY_PEAK (default 3) times the day's average rate for
 * BENCH_DAY_SECONDS (default 300): home and notification reads, posts,
 * favourites, follows, a streaming socket per user and signed inbound notes
 * from BENCH_DAY_REMOTES remote followees (default 200); p50/p99 per kind
 * and the server's CPU as a share of one core, both databases
 * (bench/day.ts). BENCH_ONLY=fanout (PostgreSQL): one post to
 * BENCH_FANOUT_FOLLOWERS remote followers (default 100,000) on
 * BENCH_FANOUT_SERVERS loopback servers (default 1,000), BENCH_FANOUT_SLOW
 * of them (default 1%) holding each delivery BENCH_FANOUT_SLOW_MS (default
 * 5,000): time to the last delivery, and the healthy servers' (fairness)
 * (bench/fanout.ts). BENCH_ONLY=home: the home timeline and posting at full
 * speed with the server's CPU per request, BENCH_COMPARE_MAIN's build in turn
 * (bench/home.ts); BENCH_ONLY=rss: the idle RSS row so (bench/rss.ts).
 */
import autocannon from "autocannon";
import { openDatabase } from "../db/connection.ts";
import { sql } from "drizzle-orm";
import { DEFAULT_SEED, seed, type Seeded } from "./seed.ts";
import { startBenchPostgres } from "./postgres.ts";
import { paced } from "./paced.ts";
import { webHomeRows } from "./web.ts";
import type { Row } from "./rows.ts";
import { type InboundReport, inboundScenario } from "./inbound.ts";
import { statementProbeFor } from "./statements.ts";
import { rateLimitScenario } from "./limits.ts";
import { type AloneResult, aloneRunner } from "./alone.ts";
import {
  ceiling,
  freePort,
  fullSpeedGet,
  idleRss,
  printProcess,
  type ProcessFigures,
  rssMiB,
  type StartRun,
  startScript,
  startupTimes,
  startV8Flags,
} from "./process.ts";
import postgres from "postgres";
import { type SearchResult, searchScenario, seedSearchLibrary } from "./search.ts";
import {
  cpuMs,
  printStreaming,
  seedStreaming,
  type StreamingResult,
  streamingScenario,
  type StreamingSeed,
} from "./streaming.ts";

/** The server run; BENCH_SERVER_MAIN: another checkout's main.ts, to compare builds. */
const MAIN = Deno.env.get("BENCH_SERVER_MAIN") ?? new URL("../main.ts", import.meta.url).pathname;
/** Extra `deno run` flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const SERVER_FLAGS = (Deno.env.get("BENCH_SERVER_FLAGS") ?? "").split(" ").filter(Boolean);
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 20);
const RATE = Number(Deno.env.get("BENCH_RATE") ?? 200);
const STATUSES = Number(Deno.env.get("BENCH_STATUSES") ?? DEFAULT_SEED.statuses);
const WHICH = Deno.env.get("BENCH_DB") ?? "both";
const ONLY = Deno.env.get("BENCH_ONLY");
const SEARCH = ONLY === "search";
/** Clients searching back to back in the search scenario (one user's latency by default). */
const SEARCH_CLIENTS = Number(Deno.env.get("BENCH_SEARCH_CLIENTS") ?? 1);
const searchResults: { database: string; rows: SearchResult[] }[] = []; // per database
const STREAMING = ONLY === "streaming";
/** Only the cheap-request, inbound and process figures. */
const CHEAP = ONLY === "cheap" || ONLY === "verify" || ONLY === "inbound";
const INBOX_COUNT = Number(Deno.env.get("BENCH_INBOX_COUNT") ?? 2000);
const INBOX_CONNECTIONS = Number(Deno.env.get("BENCH_INBOX_CONNECTIONS") ?? 32);
const INBOX_RATE = Number(Deno.env.get("BENCH_INBOX_RATE") ?? 200);
const INBOX_SENDERS = Number(Deno.env.get("BENCH_INBOX_SENDERS") ?? 1);
const INBOX_FOLLOWERS = Number(Deno.env.get("BENCH_INBOX_FOLLOWERS") ?? 0);
/** The day's mix, the fan-out or the home rows, each alone on its own server (bench/alone.ts). */
const ALONE = aloneRunner(ONLY);
const aloneResults: AloneResult[] = []; // their own tables, printed after the main one
const STARTS = Number(Deno.env.get("BENCH_STARTS") ?? 3);
/** Per database: verify_credentials/s, idle RSS, the inbound report and its exact row count. */
const processFigures: (ProcessFigures & { inbound?: InboundReport })[] = [];
const STREAM_SOCKETS = Number(Deno.env.get("BENCH_STREAM_SOCKETS") ?? 1000);
const STREAM_POSTS = Number(Deno.env.get("BENCH_STREAM_POSTS") ?? 50);
const STREAM_INTERVAL = Number(Deno.env.get("BENCH_STREAM_INTERVAL") ?? 200);
const STREAM_WORKERS = Deno.env.get("BENCH_STREAM_WORKERS");
const STREAM_CLIENT = Deno.env.get("BENCH_STREAM_CLIENT") === "websocket" ? "websocket" : "native";
/** The streaming scenario's figures (or why it failed), per database. */
const streamingResults: { database: string; result: StreamingResult | string }[] = [];

/** Seeds `database` for the chosen scenarios; the streaming accounts when `streaming`. */
async function seedFor(
  database: Awaited<ReturnType<typeof openDatabase>>,
  streaming: boolean,
): Promise<Seeded & { streaming?: StreamingSeed }> {
  const tokens = await seed(database, {
    ...DEFAULT_SEED,
    statuses: STATUSES,
    origin: "http://localhost",
    searchable: SEARCH,
    followerTokens: INBOX_FOLLOWERS,
  });
  if (SEARCH) await seedSearchLibrary(database);
  if (!streaming) return tokens;
  return {
    ...tokens,
    streaming: await seedStreaming(database, "http://localhost", STREAM_SOCKETS),
  };
}

/**
 * The streaming scenario against a running server: a table of its own and a
 * row in the main one (time to the last socket; errors = missed deliveries
 * and failed posts). A failure (no streaming endpoint, say) is reported, and
 * the other scenarios' figures still printed.
 */
async function runStreaming(
  database: string,
  server: { url: string; pid: number },
  seeded: StreamingSeed,
  databaseUrl?: string,
): Promise<Row[]> {
  log(`${database}: streaming to ${STREAM_SOCKETS} sockets`);
  try {
    const result = await streamingScenario({
      url: server.url,
      pid: server.pid,
      seeded,
      posts: STREAM_POSTS,
      intervalMs: STREAM_INTERVAL,
      workers: STREAM_WORKERS ? Number(STREAM_WORKERS) : undefined,
      client: STREAM_CLIENT,
      databaseUrl,
      log: (message) => log(`${database}: ${message}`),
    });
    streamingResults.push({ database, result });
    return [{
      database,
      scenario: `POST status → update on all ${STREAM_SOCKETS} user sockets`,
      requestsPerSecond: Math.round(1000 / STREAM_INTERVAL),
      p50: result.lastSocket.p50,
      p99: result.lastSocket.p99,
      errors: result.missed + result.errors,
    }];
  } catch (error) {
    log(`${database}: the streaming scenario failed: ${error}`);
    streamingResults.push({ database, result: String(error) });
    return [];
  }
}

/** The search scenario against a running server. */
async function runSearch(database: string, url: string, tokens: Seeded): Promise<void> {
  log(`${database}: status search, ${SECONDS} s`);
  searchResults.push({
    database,
    rows: await searchScenario(url, tokens.viewerToken, SECONDS, SEARCH_CLIENTS),
  });
}

function log(message: string) {
  console.error(`[bench] ${message}`);
}

async function startServer(env: Record<string, string>, port = freePort(), main = MAIN) {
  // The address the scenarios request: a server answers only its own host.
  const origin = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...startV8Flags(main), ...SERVER_FLAGS, await startScript(main)],
    cwd: main.slice(0, main.lastIndexOf("/") + 1) || ".", // its checkout's deno.json
    env: {
      PORT: String(port),
      BIND: "127.0.0.1",
      ORIGIN: origin,
      RATE_LIMITS: "off",
      LOG_LEVEL: "error",
      // The inbound scenario's remote server is on loopback, over http.
      ALLOW_PRIVATE_ADDRESS: "true",
      ...env,
    },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  for (let i = 0; i < 600; i++) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* starting */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    databaseUrl: env.DATABASE_URL,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* stopped already */ }
      await child.status;
    },
  };
}

async function cannon(options: Record<string, unknown>) {
  const result = await autocannon({ duration: SECONDS, ...options });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

async function scenarios(
  database: string,
  { url, pid, databaseUrl }: { url: string; pid: number; databaseUrl?: string },
  tokens: Seeded,
): Promise<Row[]> {
  const home = {
    url: `${url}/api/v1/timelines/home?limit=40`,
    headers: { authorization: `Bearer ${tokens.viewerToken}` },
  };
  // A new server makes its instance actor's keys at start: RSA-4096 takes a
  // core for about three seconds (often more), which overlapped the first
  // scenario and put up to a second into its p99. Serving the actor waits
  // for the keys, as a running server would have them.
  const actor = await fetch(`${url}/actor`, { headers: { accept: "application/activity+json" } });
  await actor.body?.cancel();
  if (!actor.ok) throw new Error(`the instance actor answered ${actor.status}`);
  const rows: Row[] = await cheapScenarios(database, { url, pid, databaseUrl }, tokens);
  if (CHEAP) return rows;
  await autocannon({ ...home, duration: 3, connections: 4 }); // warm caches and plans
  // And the paced generator's own connections and code: its first requests
  // (new sockets, unoptimized fetch paths in this process) took up to
  // 120 ms and, at 3,000 samples, decided the p99 of a quiet server.
  await paced({ ...home, rate: RATE, seconds: 2 });
  log(`${database}: home timeline at ${RATE} requests/s`);
  rows.push({
    database,
    scenario: `home limit=40 @ ${RATE}/s`,
    ...await paced({ ...home, rate: RATE, seconds: SECONDS }),
  });
  log(`${database}: home timeline, full speed`);
  rows.push({
    database,
    scenario: "home limit=40 max",
    ...await cannon({ ...home, connections: 32 }),
  });
  rows.push(
    ...await webHomeRows(database, { url, pid }, tokens.viewerCookie, home, {
      rate: RATE,
      seconds: SECONDS,
      cannon,
      log,
    }),
  );
  log(`${database}: posting with 100 followers, full speed`);
  rows.push({
    database,
    scenario: "POST status (100 followers) max",
    ...await cannon({
      url: `${url}/api/v1/statuses`,
      method: "POST",
      connections: 16,
      headers: {
        authorization: `Bearer ${tokens.posterToken}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body:
        "status=Benchmark%20post%20with%20a%20%23hashtag%20and%20a%20link%20https%3A%2F%2Fexample.com%2F",
    }),
  });
  return rows;
}

/**
 * verify_credentials at full speed and signed inbound Create(Note), full
 * speed and at INBOX_RATE/s (bench/inbound.ts). Their figures also go to
 * processFigures for the summary.
 */
async function cheapScenarios(
  database: string,
  { url, pid, databaseUrl }: { url: string; pid: number; databaseUrl?: string },
  tokens: Seeded,
): Promise<Row[]> {
  const verify = {
    url: `${url}/api/v1/accounts/verify_credentials`,
    headers: { authorization: `Bearer ${tokens.viewerToken}` },
  };
  const rows: Row[] = [];
  let helloWorld = 0;
  /** Server CPU per verify_credentials request, ms: steadier than rates on a busy machine. */
  let verifyCpuMs = NaN;
  if (ONLY !== "inbound") {
    // The ceiling next to the call it is the yardstick for, so both see
    // the same load on the machine.
    log(`${database}: hello-world ceiling, full speed`);
    helloWorld = await ceiling(SECONDS, startV8Flags(MAIN));
    await fullSpeedGet(verify.url, verify.headers, 3); // warm up
    log(`${database}: verify_credentials, full speed`);
    const cpuBefore = cpuMs(pid);
    const { tool, ...figures } = await fullSpeedGet(verify.url, verify.headers, SECONDS);
    verifyCpuMs = (cpuMs(pid) - cpuBefore) / (figures.requestsPerSecond * SECONDS);
    rows.push({ database, scenario: `GET verify_credentials max (${tool})`, ...figures });
  }
  const verifyCredentials = rows[0]?.requestsPerSecond ?? 0;
  if (ONLY === "verify") {
    processFigures.push({ database, helloWorld, verifyCredentials, verifyCpuMs, idleRss: 0 });
    return rows;
  }
  log(`${database}: signed inbound Create(Note)`);
  const inbound = await inboundScenario({
    url,
    token: tokens.viewerToken,
    username: "bench0",
    count: INBOX_COUNT,
    senders: INBOX_SENDERS,
    concurrency: INBOX_CONNECTIONS,
    rate: INBOX_RATE,
    seconds: SECONDS,
    cpuMs: () => cpuMs(pid),
    log: (message) => log(`${database}: inbound: ${message}`),
    statements: statementProbeFor(databaseUrl),
    followers: tokens.followerTokens,
  });
  const { fullSpeed: full, fixedRate: fixed } = inbound;
  const followed = (INBOX_FOLLOWERS ? `, ${INBOX_FOLLOWERS} local followers` : "") +
    (Deno.env.get("BENCH_INBOX_SIGNED") === "ld" ? ", LD-signed" : "");
  rows.push({
    database,
    scenario: `inbound Create(Note) max (${INBOX_CONNECTIONS} at a time; stored/s${followed})`,
    requestsPerSecond: full.acceptedPerSecond,
    p50: NaN,
    p99: NaN,
    errors: full.sent - full.stored,
  }, {
    database,
    scenario: `inbound Create(Note) @ ${INBOX_RATE}/s (202 latency${followed})`,
    requestsPerSecond: Math.round(fixed.stored / SECONDS),
    p50: fixed.p50,
    p95: fixed.p95,
    p99: fixed.p99,
    errors: fixed.sent - fixed.stored,
  });
  processFigures.push({
    database,
    helloWorld,
    verifyCredentials,
    verifyCpuMs,
    idleRss: 0,
    inbound,
  });
  return rows;
}

/** Idle RSS of a fresh server on the same data after 100 requests (bench/process.ts). */
async function idleRssOf(database: string, env: Record<string, string>, tokens: Seeded) {
  log(`${database}: idle RSS after 100 requests`);
  const server = await startServer(env);
  try {
    const rss = await idleRss(server.url, server.pid, tokens.viewerToken);
    const figures = processFigures.find((f) => f.database === database);
    if (figures) figures.idleRss = rss;
  } finally {
    await server.stop();
  }
}

/** Notes of the inbound scenario stored in `database` (an exact count of rows). */
async function notesIn(database: Awaited<ReturnType<typeof openDatabase>>, prefix: string) {
  const [row] = await database.rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM statuses WHERE uri LIKE ${prefix + "%"}`,
  );
  return Number(row?.n ?? 0);
}

/** The exact count of the inbound notes in the database, once its server has stopped. */
async function checkNotes(database: string, options: Parameters<typeof openDatabase>[0]) {
  const figures = processFigures.find((f) => f.database === database);
  if (!figures?.inbound) return;
  const db = await openDatabase(options);
  try {
    figures.notesInDatabase = await notesIn(db, figures.inbound.notePrefix);
  } finally {
    await db.close();
  }
}

async function benchPglite(): Promise<{ rows: Row[]; rss: number }> {
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-bench-" });
  try {
    log(`pglite: seeding ${STATUSES} statuses`);
    const started = performance.now();
    const database = await openDatabase({ databaseUrl: null, pgliteDir: `${dataDir}/db` });
    const tokens = await seedFor(database, STREAMING);
    await database.close();
    log(`pglite: seeded in ${Math.round((performance.now() - started) / 1000)} s`);
    if (ALONE) {
      const alone = await ALONE({
        database: "PGlite",
        open: () => openDatabase({ databaseUrl: null, pgliteDir: `${dataDir}/db` }),
        start: (port, s) => startServer({ DATA_DIR: dataDir, ...s?.env }, port, s?.main),
        tokens,
        log,
      });
      aloneResults.push(alone);
      return { rows: alone.rows, rss: 0 };
    }
    const server = await startServer({ DATA_DIR: dataDir });
    try {
      if (SEARCH) {
        await runSearch("PGlite", server.url, tokens);
        return { rows: [], rss: rssMiB(server.pid) };
      }
      if (STREAMING) {
        const rows = await runStreaming("PGlite", server, tokens.streaming!);
        return { rows, rss: rssMiB(server.pid) };
      }
      const rows = await scenarios("PGlite", server, tokens);
      const rss = rssMiB(server.pid);
      await server.stop();
      await checkNotes("PGlite", { databaseUrl: null, pgliteDir: `${dataDir}/db` });
      await idleRssOf("PGlite", { DATA_DIR: dataDir }, tokens);
      return { rows, rss };
    } finally {
      await server.stop();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

async function benchPostgres(): Promise<{ rows: Row[]; rss: number } | null> {
  const pg = await startBenchPostgres();
  if (!pg) {
    log("postgres: no PostgreSQL binaries found and BENCH_DATABASE_URL unset; skipped");
    return null;
  }
  const name = `rookery_bench_${Date.now()}`;
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(pg.url);
  url.pathname = `/${name}`;
  const dataDir = await Deno.makeTempDir({ prefix: "rookery-bench-" });
  try {
    log(`postgres: seeding ${STATUSES} statuses`);
    const started = performance.now();
    const database = await openDatabase({ databaseUrl: url.toString(), pgliteDir: "" });
    // Streaming is part of the default run here (not of the limits or search runs).
    const tokens = await seedFor(database, STREAMING || ONLY === undefined);
    await database.close();
    log(`postgres: seeded in ${Math.round((performance.now() - started) / 1000)} s`);
    const env = { DATA_DIR: dataDir, DATABASE_URL: url.toString() };
    const rows: Row[] = [];
    let rss = 0;
    if (ALONE) {
      const alone = await ALONE({
        database: "PostgreSQL",
        open: () => openDatabase({ databaseUrl: url.toString(), pgliteDir: "" }),
        start: (port, s) => startServer({ ...env, ...s?.env }, port, s?.main),
        tokens,
        log,
      });
      aloneResults.push(alone);
      return { rows: alone.rows, rss };
    }
    if (ONLY !== "limits" && !STREAMING) {
      const server = await startServer(env);
      try {
        if (SEARCH) await runSearch("PostgreSQL", server.url, tokens);
        else rows.push(...await scenarios("PostgreSQL", server, tokens));
        rss = rssMiB(server.pid);
      } finally {
        await server.stop();
      }
      if (!SEARCH) {
        await checkNotes("PostgreSQL", { databaseUrl: url.toString(), pgliteDir: "" });
        await idleRssOf("PostgreSQL", env, tokens);
      }
    }
    if (tokens.streaming) {
      // A server of its own: its RSS before the sockets is not the other scenarios'.
      const server = await startServer(env);
      try {
        rows.push(...await runStreaming("PostgreSQL", server, tokens.streaming, url.toString()));
        if (STREAMING) rss = rssMiB(server.pid);
      } finally {
        await server.stop();
      }
    }
    if (!SEARCH && !STREAMING && !CHEAP) {
      log("postgres: API calls with rate limits on, full speed");
      rows.push(await rateLimitScenario(env, url.toString(), SECONDS, startServer));
    }
    return { rows, rss };
  } finally {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
    await pg.stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

const results: { rows: Row[]; rss: number; database: string }[] = [];
const processRun = !SEARCH && !STREAMING && !ALONE && ONLY !== "limits";
if (WHICH === "both" || WHICH === "postgres") {
  const r = await benchPostgres();
  if (r) results.push({ ...r, database: "PostgreSQL" });
}
// The fan-out's figure is PostgreSQL's: PGlite is a single self-hoster's database.
if ((WHICH === "both" || WHICH === "pglite") && ONLY !== "limits" && ONLY !== "fanout") {
  results.push({ ...await benchPglite(), database: "PGlite" });
}

console.log(
  `\nRookery benchmark: ${STATUSES.toLocaleString("en")} statuses, ` +
    `${DEFAULT_SEED.accounts} accounts, ${SECONDS} s per scenario, ${navigator.hardwareConcurrency} cores\n`,
);
let starts: StartRun[] = [];
if (processRun && WHICH !== "postgres") {
  log(`deno task start on a fresh PGlite data directory, ${STARTS} times`);
  starts = await startupTimes(STARTS, MAIN.replace(/main\.ts$/, ""));
}

console.log(
  "| database | scenario | requests/s | p50 ms | p95 ms | p99 ms | errors | counter writes/request |",
);
console.log("|---|---|---:|---:|---:|---:|---:|---:|");
/** A latency; a delivery that never came (streaming) makes it Infinity; NaN: not measured. */
const ms = (v: number | undefined) =>
  v === undefined || Number.isNaN(v) ? "" : Number.isFinite(v) ? String(v) : "never";
for (const { rows } of results) {
  for (const r of rows) {
    console.log(
      `| ${r.database} | ${r.scenario} | ${r.requestsPerSecond} | ${ms(r.p50)} | ${ms(r.p95)} | ${
        ms(r.p99)
      } | ${r.errors} | ${r.writesPerRequest ?? ""} |`,
    );
  }
}
for (const { database, rows } of searchResults) {
  console.log(`\nStatus search (GET /api/v2/search?type=statuses&limit=20), ${database}:\n`);
  console.log("| query | requests | p50 ms | p95 ms | p99 ms | errors |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(`| ${r.query} | ${r.requests} | ${r.p50} | ${r.p95} | ${r.p99} | ${r.errors} |`);
  }
}
for (const alone of aloneResults) alone.print();
for (const { database, result } of streamingResults) {
  if (typeof result === "string") console.log(`\nStreaming, ${database}: failed: ${result}`);
  else printStreaming(database, result);
}
if (!ALONE) {
  console.log("\n| database | server RSS after the run (MiB) |\n|---|---:|");
  for (const r of results) console.log(`| ${r.database} | ${r.rss} |`);
}
if (processRun) printProcess(processFigures, starts);
Deno.exit(0);
