/**
 * The `streaming` scenario (`BENCH_ONLY=streaming`; also part of the default
 * run on PostgreSQL): one poster with 1,000 local followers, each holding a
 * WebSocket on `/api/v1/streaming?stream=user` to the real server.
 *
 * Data, added to the common seed (seed.ts): accounts `stream0` … `stream1000`;
 * `stream0` is the poster (a `read write follow` token), `stream1` …
 * `stream1000` follow it and each has a token with only `read`, as a phone
 * app signed in with the default scope would.
 *
 * What is measured:
 * - the server's RSS (/proc/<pid>/status) before the sockets are opened
 *   (after a warm-up of the streaming path on a few sockets), once all are
 *   open and subscribed, and once a post has reached them all and they are
 *   idle again, each after a settle: the extra MiB per 1,000 connections
 *   (the last is how connections stay: a socket that has sent a frame keeps
 *   buffers a never-used one has not grown yet);
 * - posts sent open-loop (post i is sent at start + i × interval, whether or
 *   not the earlier ones were answered or delivered): for each, the time
 *   from sending `POST /api/v1/statuses` to its answer, to the NOTIFY on the
 *   bus as another listener on the same PostgreSQL sees it (where the time
 *   goes: committed and announced, vs rendered and sent), to its `update`
 *   frame on the first socket and on the LAST of the sockets; and every
 *   single delivery's latency;
 * - the server's and this process's CPU time per post (/proc/<pid>/stat):
 *   the client's share of the two cores is part of the figures.
 *
 * The client does as little as possible per frame so that its own work
 * takes as little as possible of the cores the server sends with and delays
 * the frames behind it as little as possible: by default a native process
 * (streaming_native.ts) that stamps a frame when the read completing it
 * returns and checks its prefix and status id; one socket's frames are
 * parsed in full to check that shortcut. Its CPU time is printed with the
 * bench's (most of it the kernel's receiving end of the loopback).
 */
import postgres from "postgres";
import type { Database } from "../db/connection.ts";
import { hashPassword } from "../actors/auth/passwords.ts";
import { createAccessToken, createApplication } from "../actors/oauth/tokens.ts";
import { ALL_SCOPES } from "../model/scopes.ts";
import { sql } from "drizzle-orm";
import { percentile } from "./paced.ts";
import { insertLocalAccounts } from "./seed.ts";
import { openPool, type Pool, type PoolResults, type StreamClient } from "./streaming_pool.ts";
import { traceEachPost } from "./streaming_trace.ts";

export interface StreamingSeed {
  posterToken: string;
  /** One `read` token per follower. */
  followerTokens: string[];
}

/** Adds the poster `stream0` and its `followers` followers `stream1` … with their tokens. */
export async function seedStreaming(
  database: Database,
  origin: string,
  followers: number,
): Promise<StreamingSeed> {
  const db = database.db;
  // A day before the common seed's accounts (seed.ts), so no id collides.
  const base = BigInt(Date.now() - 41 * 86_400_000) << 16n;
  await insertLocalAccounts(database, {
    origin,
    base,
    prefix: "stream",
    count: followers + 1,
    statusesCount: 0,
    passwordHash: await hashPassword("benchmark password"),
  });
  // Follow ids: the follower's account id + 2 (users take + 1).
  await db.execute(sql`
    INSERT INTO follows (id, account_id, target_account_id)
    SELECT ${base}::bigint + (i << 16) + 2, ${base}::bigint + (i << 16), ${base}::bigint
    FROM generate_series(1, ${followers}::int) AS i`);
  await db.execute(sql`UPDATE accounts SET
      followers_count = CASE WHEN id = ${base}::bigint THEN ${followers}::int ELSE 0 END,
      following_count = CASE WHEN id = ${base}::bigint THEN 0 ELSE 1 END
    WHERE id BETWEEN ${base}::bigint AND ${base}::bigint + (${followers}::bigint << 16)`);
  await db.execute(sql`ANALYZE accounts, users, follows`);

  const { application } = await createApplication(db, {
    name: "Rookery streaming benchmark",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: [...ALL_SCOPES],
  });
  const userId = (i: number) => String(base + (BigInt(i) << 16n) + 1n);
  const token = async (i: number, scopes: string[]) =>
    (await createAccessToken(db, { applicationId: application.id, userId: userId(i), scopes }))
      .token;
  const posterToken = await token(0, ["read", "write", "follow"]);
  const followerTokens: string[] = [];
  for (let i = 1; i <= followers; i++) followerTokens.push(await token(i, ["read"]));
  return { posterToken, followerTokens };
}

export interface StreamingOptions {
  /** The server, `http://host:port`. */
  url: string;
  /** The server's process id, for its RSS and CPU time. */
  pid: number;
  seeded: StreamingSeed;
  /** Posts measured. */
  posts: number;
  /** Milliseconds between two posts. */
  intervalMs: number;
  /**
   * The server's PostgreSQL database: the bench listens on the bus channel
   * too and times each update's NOTIFY. None on PGlite (the bus is in-process).
   */
  databaseUrl?: string;
  log(message: string): void;
  /** Idle time before each RSS reading (default 5 s: the garbage collector settles). */
  settleMs?: number;
  /** How long to wait for deliveries still missing after the last answer (default 10 s). */
  drainMs?: number;
  /** Threads of the bench client holding the sockets (streaming_pool.ts's default). */
  workers?: number;
  /** How the bench holds its sockets (streaming_pool.ts; default: the native client). */
  client?: StreamClient;
}

/** Percentiles of one measure, in ms; Infinity where a delivery never came. */
export interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export interface StreamingResult {
  sockets: number;
  posts: number;
  client: StreamClient;
  /** Seconds to open all sockets. */
  openSeconds: number;
  postAnswered: Summary;
  /** From sending the post to its NOTIFY, seen by another listener (PostgreSQL only). */
  notified: Summary | null;
  firstSocket: Summary;
  /** From sending the post to its frame on the last socket (Infinity if one never came). */
  lastSocket: Summary;
  /** Every (post, socket) delivery. */
  deliveries: Summary;
  /**
   * Per post, from its NOTIFY to the first socket (reading the event,
   * rendering, the first write; PostgreSQL only) and from the first socket
   * to the last (writing to every socket, and this client reading them).
   */
  notifiedToFirst: Summary | null;
  firstToLast: Summary;
  /** Deliveries that never came (within the wait after the last post). */
  missed: number;
  /** Frames for a status a socket had already received. */
  duplicates: number;
  /** Failed posts. */
  errors: number;
  rssBeforeMiB: number;
  /** All sockets open and subscribed, before any event went to them. */
  rssIdleMiB: number;
  /** After the warm-up post(s) reached them, idle again: the connections as they stay. */
  rssOpenMiB: number;
  rssAfterMiB: number;
  /** (idle − before) and (open − before), scaled to 1,000 connections. */
  extraIdleMiBPer1000: number;
  extraMiBPer1000: number;
  /** Server and bench-process CPU time per measured post, ms. */
  serverCpuMsPerPost: number;
  clientCpuMsPerPost: number;
  clientSystemMsPerPost: number;
  /** Server CPU time per second with the sockets open and no event (heartbeats, token checks). */
  idleServerCpuMsPerSecond: number;
  /** /proc/loadavg (1 min) before and after the measured posts. */
  loadBefore: number;
  loadAfter: number;
}

interface Posted {
  id: string;
  sentAt: number;
  answeredAt: number;
}

async function post(url: string, token: string, text: string): Promise<Posted> {
  const sentAt = performance.now();
  const res = await fetch(`${url}/api/v1/statuses`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ status: text }),
  });
  const body = await res.json();
  const answeredAt = performance.now();
  if (!res.ok || typeof body.id !== "string") {
    throw new Error(`POST /api/v1/statuses answered ${res.status} ${JSON.stringify(body)}`);
  }
  return { id: body.id, sentAt, answeredAt };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until every socket has `id`, or `ms` pass; true if all did. */
async function delivered(sockets: Pool, id: string, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (performance.now() < deadline) {
    if (sockets.received(id) === sockets.size) return true;
    await sleep(10);
  }
  return false;
}

function rssKiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** User + system CPU time of a process, ms. */
export function cpuMs(pid: number | "self"): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/** User and system CPU time of a process, ms. */
function cpuTimes(pid: number | "self"): { user: number; system: number } {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // Fields after the command name (which may hold spaces): utime is the 14th field overall.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // USER_HZ is 100 on Linux.
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

function loadAverage(): number {
  return Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
}

function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (ms: number) => Number.isFinite(ms) ? Math.round(ms * 10) / 10 : ms;
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 0.5)),
    p99: round(percentile(sorted, 0.99)),
    max: round(sorted.at(-1) ?? 0),
  };
}

/** Times of the bus's update events seen by a listener of our own, by status id. */
async function listenToBus(databaseUrl: string) {
  const client = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const seen: { at: number; payload: string }[] = [];
  const { unlisten } = await client.listen("rookery_stream", (payload) => {
    seen.push({ at: performance.now(), payload });
  });
  return {
    /** Stops listening; resolves the events stored by reference. */
    async stop(): Promise<Map<string, number>> {
      await unlisten();
      const times = new Map<string, number>();
      try {
        for (const { at, payload } of seen) {
          let event: { event?: string; statusId?: string };
          if (payload.startsWith("@")) {
            const [row] = await client`SELECT payload FROM stream_events
              WHERE id = ${payload.slice(1)}::bigint`;
            if (!row) continue;
            event = typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload;
          } else {
            event = JSON.parse(payload);
          }
          if (event.event === "update" && event.statusId && !times.has(event.statusId)) {
            times.set(event.statusId, at);
          }
        }
      } finally {
        await client.end();
      }
      return times;
    },
  };
}

/**
 * Warms the streaming path (code, caches, prepared statements) on a few
 * sockets, so the baseline RSS is a running server's, not a cold one's.
 */
async function warmUp(options: StreamingOptions): Promise<void> {
  const { url, seeded } = options;
  const tokens = seeded.followerTokens;
  const few = await openPool(url, tokens.slice(0, 10), options.client ?? "native", 1);
  try {
    for (let i = 0; i < 3; i++) {
      const warm = await post(url, seeded.posterToken, `Streaming warm-up ${i}`);
      if (!await delivered(few, warm.id, 10_000)) {
        throw new Error(
          `a post reached ${few.received(warm.id)} of ${few.size} warm-up sockets in 10 s`,
        );
      }
    }
    await few.close();
  } finally {
    few.terminate();
  }
}

/**
 * Subscribed = has received a post. Sockets that missed one (registered
 * after it) get the next; a few tries. Logs what kept sockets silent.
 */
async function waitSubscribed(options: StreamingOptions, sockets: Pool): Promise<void> {
  const { url, seeded, log } = options;
  let results: PoolResults | null = null;
  for (let i = 0; i < 5; i++) {
    const warm = await post(url, seeded.posterToken, `Streaming warm-up, all sockets ${i}`);
    if (await delivered(sockets, warm.id, 10_000)) return;
    results = await sockets.results();
    if (results.silent === 0) return;
  }
  if (!results) return;
  log(`streaming: ${results.silent} sockets received no warm-up post`);
  for (const [text, n] of results.refusals) log(`streaming: ${n} sockets were sent ${text}`);
  for (const [why, n] of results.closes) log(`streaming: ${n} sockets were closed: ${why}`);
  log(`streaming: socket readyStates ${JSON.stringify([...results.readyStates])}`);
}

/** Sends the posts at their interval, then waits (up to the drain time) for every delivery. */
async function sendPosts(
  options: StreamingOptions,
  sockets: Pool,
): Promise<{ posted: Posted[]; errors: number }> {
  const posted: Posted[] = [];
  let errors = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now() + 10;
  for (let i = 0; i < options.posts; i++) {
    await sleep(Math.max(0, start + i * options.intervalMs - performance.now()));
    pending.push(
      post(options.url, options.seeded.posterToken, `Streaming benchmark post ${i}`).then(
        (p) => void posted.push(p),
        () => void errors++,
      ),
    );
  }
  await Promise.all(pending);
  const drainUntil = performance.now() + (options.drainMs ?? 10_000);
  while (
    performance.now() < drainUntil && posted.some((p) => sockets.received(p.id) < sockets.size)
  ) await sleep(10);
  return { posted, errors };
}

/** The latencies of every post, from sending it: answer, NOTIFY, first and last socket. */
function latencies(
  posted: Posted[],
  sockets: { size: number; arrivals: Map<string, Float64Array> },
  notifiedAt: Map<string, number> | null,
) {
  const out = {
    answered: [] as number[],
    notified: [] as number[],
    first: [] as number[],
    last: [] as number[],
    all: [] as number[],
    notifiedToFirst: [] as number[],
    firstToLast: [] as number[],
    missed: 0,
  };
  for (const p of posted) {
    out.answered.push(p.answeredAt - p.sentAt);
    const n = notifiedAt?.get(p.id);
    if (n !== undefined) out.notified.push(n - p.sentAt);
    const times = sockets.arrivals.get(p.id) ?? new Float64Array(sockets.size).fill(NaN);
    let min = Infinity;
    let max = -Infinity;
    for (const t of times) {
      if (Number.isNaN(t)) {
        out.missed++;
        max = Infinity;
        continue;
      }
      const latency = t - p.sentAt;
      out.all.push(latency);
      if (latency < min) min = latency;
      if (latency > max) max = latency;
    }
    out.first.push(min);
    out.last.push(max);
    if (n !== undefined) out.notifiedToFirst.push(p.sentAt + min - n);
    out.firstToLast.push(max - min);
  }
  return out;
}

/** The server's RSS at each stage of the scenario, KiB. */
interface RssKiB {
  before: number;
  idle: number;
  open: number;
  after: number;
}

/** The posting phase's measures. */
export interface PostingRun {
  posts: number;
  posted: Posted[];
  errors: number;
  notifiedAt: Map<string, number> | null;
  serverCpuMsPerPost: number;
  clientCpuMsPerPost: number;
  /** The bench process's share of it in the kernel (reads, the loopback's receiving end). */
  clientSystemMsPerPost: number;
  loadBefore: number;
  loadAfter: number;
  rssAfter: number;
  received: PoolResults;
}

/** Posts with every socket open, measuring CPU, load and (with a database URL) the bus. */
async function postingRun(options: StreamingOptions, sockets: Pool): Promise<PostingRun> {
  const { pid } = options;
  const bus = options.databaseUrl ? await listenToBus(options.databaseUrl) : null;
  options.log(`streaming: ${options.posts} posts, ${options.intervalMs} ms apart`);
  const loadBefore = loadAverage();
  const serverCpu = cpuMs(pid);
  // The bench's threads, and the native client's process when it holds the sockets.
  const clientTimes = () => {
    const own = cpuTimes("self");
    if (sockets.pid === undefined) return own;
    const child = cpuTimes(sockets.pid);
    return { user: own.user + child.user, system: own.system + child.system };
  };
  const clientCpu = clientTimes();
  const { posted, errors } = await sendPosts(options, sockets);
  const serverCpuMsPerPost = (cpuMs(pid) - serverCpu) / options.posts;
  const clientCpuAfter = clientTimes();
  const clientSystemMsPerPost = (clientCpuAfter.system - clientCpu.system) / options.posts;
  const clientCpuMsPerPost = (clientCpuAfter.user - clientCpu.user) / options.posts +
    clientSystemMsPerPost;
  const loadAfter = loadAverage();
  const rssAfter = rssKiB(pid);
  await sockets.close();
  const received = await sockets.results();
  const notifiedAt = bus ? await bus.stop() : null;
  if (received.misread > 0) {
    throw new Error(`${received.misread} update frames were not read as expected (frame format?)`);
  }
  return {
    posts: options.posts,
    posted,
    errors,
    notifiedAt,
    serverCpuMsPerPost,
    clientCpuMsPerPost,
    clientSystemMsPerPost,
    loadBefore,
    loadAfter,
    rssAfter,
    received,
  };
}

/** The scenario's result from its measures. */
function resultOf(
  client: StreamClient,
  sockets: number,
  run: PostingRun,
  rss: RssKiB,
  idle: { openSeconds: number; serverCpuMsPerSecond: number },
): StreamingResult {
  const l = latencies(
    run.posted,
    { size: sockets, arrivals: run.received.arrivals },
    run.notifiedAt,
  );
  const mib = (kib: number) => Math.round(kib / 1024 * 10) / 10;
  const tenth = (v: number) => Math.round(v * 10) / 10;
  return {
    sockets,
    posts: run.posts,
    client,
    openSeconds: tenth(idle.openSeconds),
    postAnswered: summarize(l.answered),
    notified: run.notifiedAt ? summarize(l.notified) : null,
    firstSocket: summarize(l.first),
    lastSocket: summarize(l.last),
    deliveries: summarize(l.all),
    notifiedToFirst: run.notifiedAt ? summarize(l.notifiedToFirst) : null,
    firstToLast: summarize(l.firstToLast),
    missed: l.missed,
    duplicates: run.received.duplicates,
    errors: run.errors,
    rssBeforeMiB: mib(rss.before),
    rssIdleMiB: mib(rss.idle),
    rssOpenMiB: mib(rss.open),
    rssAfterMiB: mib(rss.after),
    extraIdleMiBPer1000: mib((rss.idle - rss.before) * 1000 / sockets),
    extraMiBPer1000: mib((rss.open - rss.before) * 1000 / sockets),
    serverCpuMsPerPost: tenth(run.serverCpuMsPerPost),
    clientCpuMsPerPost: tenth(run.clientCpuMsPerPost),
    clientSystemMsPerPost: tenth(run.clientSystemMsPerPost),
    idleServerCpuMsPerSecond: Math.round(idle.serverCpuMsPerSecond),
    loadBefore: run.loadBefore,
    loadAfter: run.loadAfter,
  };
}

/** Runs the scenario against a server seeded with {@link seedStreaming}. */
export async function streamingScenario(options: StreamingOptions): Promise<StreamingResult> {
  const { url, pid, seeded, log } = options;
  const settleMs = options.settleMs ?? 5000;
  const tokens = seeded.followerTokens;
  await warmUp(options);
  await sleep(settleMs);
  const before = rssKiB(pid);

  log(`streaming: opening ${tokens.length} sockets`);
  const openStarted = performance.now();
  const sockets = await openPool(url, tokens, options.client ?? "native", options.workers);
  const openSeconds = (performance.now() - openStarted) / 1000;
  try {
    // The URL's subscription is made just after the upgrade: settled by now.
    await sleep(settleMs);
    const idleRss = rssKiB(pid);
    await waitSubscribed(options, sockets);
    // Idle: let the server's garbage collector settle before reading the RSS.
    const idleCpu = cpuMs(pid);
    const idleStarted = performance.now();
    await sleep(settleMs);
    const serverCpuMsPerSecond = (cpuMs(pid) - idleCpu) /
      Math.max(0.001, (performance.now() - idleStarted) / 1000);
    const open = rssKiB(pid);

    const run = await postingRun(options, sockets);
    traceEachPost(run, sockets.size);
    const rss = { before, idle: idleRss, open, after: run.rssAfter };
    return resultOf(options.client ?? "native", sockets.size, run, rss, {
      openSeconds,
      serverCpuMsPerSecond,
    });
  } finally {
    sockets.terminate();
  }
}

/** Prints one database's streaming figures as Markdown tables. */
export function printStreaming(database: string, r: StreamingResult): void {
  const ms = (v: number) => Number.isFinite(v) ? String(v) : "never";
  console.log(
    `\nStreaming, ${database}: ${r.sockets.toLocaleString("en")} sockets on \`user\` ` +
      `(opened in ${r.openSeconds} s), ${r.posts} posts; bench client: ${r.client}; ` +
      `times from sending the POST:\n`,
  );
  console.log("| measure | samples | p50 ms | p99 ms | max ms |");
  console.log("|---|---:|---:|---:|---:|");
  const row = (name: string, s: Summary | null) => {
    if (s) console.log(`| ${name} | ${s.count} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.max)} |`);
  };
  row("POST answered", r.postAnswered);
  row("NOTIFY seen by another listener", r.notified);
  row("update on the first socket", r.firstSocket);
  row(`update on the last of ${r.sockets} sockets`, r.lastSocket);
  row("every delivery", r.deliveries);
  row("per post: NOTIFY → first socket", r.notifiedToFirst);
  row("per post: first → last socket", r.firstToLast);
  console.log(
    `\nmissed deliveries ${r.missed}, duplicates ${r.duplicates}, failed posts ${r.errors}; ` +
      `CPU per post: server ${r.serverCpuMsPerPost} ms, bench client ${r.clientCpuMsPerPost} ms ` +
      `(${r.clientSystemMsPerPost} in the kernel); ` +
      `server CPU with the sockets idle: ${r.idleServerCpuMsPerSecond} ms/s; ` +
      `load average ${r.loadBefore} → ${r.loadAfter}`,
  );
  console.log(
    "\n| server RSS (MiB): before the sockets | open, no event yet | open, after a post, idle | after the posts | extra MiB per 1,000 sockets (no event yet / after a post) |",
  );
  console.log("|---:|---:|---:|---:|---:|");
  console.log(
    `| ${r.rssBeforeMiB} | ${r.rssIdleMiB} | ${r.rssOpenMiB} | ${r.rssAfterMiB} | ` +
      `${r.extraIdleMiBPer1000} / ${r.extraMiBPer1000} |`,
  );
}
