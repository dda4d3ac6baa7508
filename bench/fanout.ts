/**
 * The fan-out scenario (`BENCH_ONLY=fanout`, PostgreSQL): one local post to
 * BENCH_FANOUT_FOLLOWERS remote followers (default 100,000) spread evenly
 * over BENCH_FANOUT_SERVERS servers (default 1,000), as Mastodon-shaped
 * accounts with a shared inbox each, so a post is one delivery per server.
 *
 * The servers are minimal HTTP listeners in this process, one loopback port
 * each (no keys, nothing to fetch: they only take deliveries and note when
 * each arrived). BENCH_FANOUT_SLOW of them (default 1%) hold every delivery
 * for BENCH_FANOUT_SLOW_MS (default 5,000) before answering, as an
 * overloaded peer does: the healthy servers' deliveries must not wait
 * behind theirs (per-server fairness: no server starved by another).
 *
 * Measured: a warm-up post, then one post, from sending `POST
 * /api/v1/statuses` to its delivery at each server: the last delivery to
 * any server, p50/p99 over the healthy servers, the healthy servers' last
 * delivery, the slow servers' last, the servers never reached, and the
 * server process's CPU time for the post (/proc, bench/streaming.ts).
 */
import { sql } from "drizzle-orm";
import type { Database } from "../db/connection.ts";
import { hashPassword } from "../actors/auth/passwords.ts";
import { createAccessToken, createApplication } from "../actors/oauth/tokens.ts";
import { ALL_SCOPES } from "../model/scopes.ts";
import { percentile } from "./paced.ts";
import { insertLocalAccounts } from "./seed.ts";
import { insertFollows, insertRemoteAccounts } from "./remote_accounts.ts";

export interface FanoutSize {
  followers: number;
  servers: number;
  /** Servers that hold each delivery for `slowMs`. */
  slow: number;
  slowMs: number;
}

/** The loopback servers that take the deliveries. */
export interface Sinks {
  origins: string[];
  /** Records deliveries whose body contains `marker` from now on (first one per server). */
  expect(marker: string): void;
  /** Per server, when the marked delivery arrived (performance.now()), or undefined. */
  arrivals(): (number | undefined)[];
  /** Deliveries received and not yet answered (the slow servers' holds). */
  pending(): number;
  close(): Promise<void>;
}

/** Starts `size.servers` listeners; the first `size.slow` are the slow ones. */
export async function startSinks(size: FanoutSize): Promise<Sinks> {
  let marker = "";
  let arrived: (number | undefined)[] = [];
  let pending = 0;
  const closing = new AbortController();
  const servers: Deno.HttpServer[] = [];
  const origins: string[] = [];
  for (let s = 0; s < size.servers; s++) {
    const { promise, resolve } = Promise.withResolvers<number>();
    servers.push(Deno.serve({
      port: 0,
      hostname: "127.0.0.1",
      onListen: ({ port }) => resolve(port),
      signal: closing.signal,
    }, async (request) => {
      const body = await request.text();
      if (marker && arrived[s] === undefined && body.includes(marker)) {
        arrived[s] = performance.now();
      }
      if (s < size.slow) {
        pending++;
        await new Promise((r) => setTimeout(r, size.slowMs));
        pending--;
      }
      return new Response(null, { status: 202 });
    }));
    origins.push(`http://127.0.0.1:${await promise}`);
  }
  return {
    origins,
    expect(m) {
      marker = m;
      arrived = new Array(size.servers).fill(undefined);
    },
    arrivals: () => arrived,
    pending: () => pending,
    async close() {
      closing.abort();
      await Promise.all(servers.map((s) => s.finished));
    },
  };
}

/** The poster `fanout0` and its remote followers; returns the poster's token. */
export async function seedFanout(
  database: Database,
  origin: string,
  size: FanoutSize,
  sinks: Sinks,
): Promise<string> {
  // Days before the common seed's accounts (seed.ts) and streaming's, so no id collides.
  const local = BigInt(Date.now() - 44 * 86_400_000) << 16n;
  const remote = BigInt(Date.now() - 43 * 86_400_000) << 16n;
  await insertLocalAccounts(database, {
    origin,
    base: local,
    prefix: "fanout",
    count: 1,
    statusesCount: 0,
    passwordHash: await hashPassword("benchmark password"),
  });
  await insertRemoteAccounts(database, {
    base: remote,
    origins: sinks.origins,
    count: size.followers,
    prefix: "follower",
  });
  await insertFollows(
    database,
    BigInt(Date.now() - 45 * 86_400_000) << 16n,
    sql`SELECT ${remote}::bigint + (i::bigint << 16) AS follower, ${local}::bigint AS target
      FROM generate_series(0, ${size.followers - 1}::int) AS i`,
  );
  const { application } = await createApplication(database.db, {
    name: "Rookery fan-out benchmark",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: [...ALL_SCOPES],
  });
  return (await createAccessToken(database.db, {
    applicationId: application.id,
    userId: String(local + 1n),
    scopes: ["read", "write"],
  })).token;
}

export interface FanoutResult {
  size: FanoutSize;
  /** From sending the post to its delivery, ms. */
  lastDelivery: number;
  healthy: { p50: number; p99: number; last: number };
  slowLast: number;
  /** Servers the post never reached (within the wait). */
  missed: number;
  serverCpuMs: number;
}

/** Posts once and waits until every server has it, or `waitMs` after the slow servers' hold. */
async function postAndWait(
  url: string,
  token: string,
  sinks: Sinks,
  size: FanoutSize,
  tag: string,
): Promise<{ sentAt: number; arrivals: (number | undefined)[] }> {
  const marker = `fanout-${tag}-${crypto.randomUUID()}`;
  sinks.expect(marker);
  const sentAt = performance.now();
  const res = await fetch(`${url}/api/v1/statuses`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body: new URLSearchParams({ status: `Fan-out benchmark ${marker}` }),
  });
  await res.body?.cancel();
  if (!res.ok) throw new Error(`POST /api/v1/statuses answered ${res.status}`);
  const deadline = sentAt + size.slowMs + 60_000;
  while (performance.now() < deadline && sinks.arrivals().some((t) => t === undefined)) {
    await new Promise((r) => setTimeout(r, 20));
  }
  return { sentAt, arrivals: [...sinks.arrivals()] };
}

export async function fanoutScenario(o: {
  url: string;
  token: string;
  sinks: Sinks;
  size: FanoutSize;
  cpuMs(): number;
  log(message: string): void;
}): Promise<FanoutResult> {
  o.log(`warm-up post to ${o.size.followers} followers on ${o.size.servers} servers`);
  await postAndWait(o.url, o.token, o.sinks, o.size, "warm");
  // The measured post starts with no delivery of the warm-up's still held.
  while (o.sinks.pending() > 0) await new Promise((r) => setTimeout(r, 50));
  o.log("measured post");
  const cpuBefore = o.cpuMs();
  const { sentAt, arrivals } = await postAndWait(o.url, o.token, o.sinks, o.size, "run");
  const serverCpuMs = Math.round(o.cpuMs() - cpuBefore);
  const since = (t: number | undefined) => t === undefined ? Infinity : Math.round(t - sentAt);
  const healthy = arrivals.slice(o.size.slow).map(since).sort((a, b) => a - b);
  const slow = arrivals.slice(0, o.size.slow).map(since);
  return {
    size: o.size,
    lastDelivery: Math.max(...arrivals.map(since)),
    healthy: {
      p50: percentile(healthy, 0.5),
      p99: percentile(healthy, 0.99),
      last: healthy.at(-1) ?? NaN,
    },
    slowLast: slow.length ? Math.max(...slow) : NaN,
    missed: arrivals.filter((t) => t === undefined).length,
    serverCpuMs,
  };
}

export function printFanout(database: string, r: FanoutResult): void {
  const { followers, servers, slow, slowMs } = r.size;
  console.log(
    `\nFan-out, ${database}: one post to ${followers} followers on ${servers} servers ` +
      `(${slow} holding each delivery ${slowMs} ms), from POST to delivery:\n`,
  );
  console.log("| measure | ms |\n|---|---:|");
  console.log(`| last delivery, any server | ${r.lastDelivery} |`);
  console.log(`| healthy servers p50 | ${r.healthy.p50} |`);
  console.log(`| healthy servers p99 | ${r.healthy.p99} |`);
  console.log(`| healthy servers' last delivery | ${r.healthy.last} |`);
  console.log(`| slow servers' last delivery | ${r.slowLast} |`);
  console.log(`| servers never reached | ${r.missed} |`);
  console.log(`| server CPU for the post | ${r.serverCpuMs} |`);
}
