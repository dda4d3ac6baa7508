/**
 * The scenarios that run alone, each on a server of its own started after
 * its extra data is seeded: the day's mix (bench/day.ts, BENCH_ONLY=day,
 * both databases) and the fan-out (bench/fanout.ts, BENCH_ONLY=fanout,
 * PostgreSQL), and the home timeline and posting rows with their CPU per
 * request (bench/home.ts, BENCH_ONLY=home), and the idle RSS row
 * (bench/rss.ts, BENCH_ONLY=rss). The day's and fan-out's
 * loopback peers start first, since the seeded accounts name their addresses.
 */
import type { Database } from "../db/connection.ts";
import { dayScenario, type DaySize, printDay, seedDay, startDayPeer } from "./day.ts";
import { fanoutScenario, type FanoutSize, printFanout, seedFanout, startSinks } from "./fanout.ts";
import { freePort } from "./process.ts";
import type { Row } from "./rows.ts";
import { cpuMs } from "./streaming.ts";
import type { Seeded } from "./seed.ts";
import { runHome } from "./home.ts";
import { runRss } from "./rss.ts";

export interface AloneOptions {
  database: string;
  /** Opens the (common-seeded) database for the extra data; closed before the server starts. */
  open(): Promise<Database>;
  /** Starts the server (`main`: another checkout's main.ts; `env`: more of its environment). */
  start(
    port: number,
    server?: { main?: string; env?: Record<string, string> },
  ): Promise<{ url: string; pid: number; stop(): Promise<void> }>;
  log(message: string): void;
  /** The seeded tokens (the home rows use them). */
  tokens: Seeded;
}

export interface AloneResult {
  rows: Row[];
  /** Prints the scenario's own table. */
  print(): void;
}

const env = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);

/** BENCH_DAY_* (bench/day.ts). */
export function daySize(): DaySize {
  return {
    users: env("BENCH_DAY_USERS", 1000),
    remotes: env("BENCH_DAY_REMOTES", 200),
    peak: env("BENCH_DAY_PEAK", 3),
    seconds: env("BENCH_DAY_SECONDS", 300),
  };
}

/** BENCH_FANOUT_* (bench/fanout.ts). */
export function fanoutSize(): FanoutSize {
  const servers = env("BENCH_FANOUT_SERVERS", 1000);
  return {
    followers: env("BENCH_FANOUT_FOLLOWERS", 100_000),
    servers,
    slow: env("BENCH_FANOUT_SLOW", Math.floor(servers / 100)),
    slowMs: env("BENCH_FANOUT_SLOW_MS", 5000),
  };
}

/** BENCH_ONLY's scenario when it runs alone: day, fanout, home (bench/home.ts) or rss (bench/rss.ts). */
export function aloneRunner(
  only: string | undefined,
): ((o: AloneOptions) => Promise<AloneResult>) | null {
  if (only === "day") return runDay;
  if (only === "fanout") return runFanout;
  if (only === "home") return runHome;
  if (only === "rss") return runRss;
  return null;
}

async function seeded<T>(o: AloneOptions, fn: (database: Database) => Promise<T>): Promise<T> {
  const database = await o.open();
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

export async function runDay(o: AloneOptions): Promise<AloneResult> {
  const size = daySize();
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const peer = await startDayPeer(url, size);
  try {
    o.log(`seeding the day's mix: ${size.users} users, ${size.remotes} remote accounts`);
    const day = await seeded(o, (database) => seedDay(database, size, peer.peer));
    const server = await o.start(port);
    try {
      const result = await dayScenario({
        url: server.url,
        seeded: day,
        peer,
        size,
        cpuMs: () => cpuMs(server.pid),
        log: (message) => o.log(`${o.database}: day: ${message}`),
      });
      return {
        rows: [{
          database: o.database,
          scenario: `a day's mix, ${size.users} users ×${size.peak} (all requests)`,
          requestsPerSecond: Math.round(result.all.count / size.seconds),
          p50: result.all.p50,
          p99: result.all.p99,
          errors: result.all.errors,
        }],
        print: () => printDay(o.database, result),
      };
    } finally {
      await server.stop();
    }
  } finally {
    await peer.peer.close();
  }
}

export async function runFanout(o: AloneOptions): Promise<AloneResult> {
  const size = fanoutSize();
  o.log(`fan-out: starting ${size.servers} servers`);
  const sinks = await startSinks(size);
  try {
    o.log(`fan-out: seeding ${size.followers} remote followers`);
    const port = freePort();
    const token = await seeded(
      o,
      (database) => seedFanout(database, `http://127.0.0.1:${port}`, size, sinks),
    );
    const server = await o.start(port);
    try {
      const result = await fanoutScenario({
        url: server.url,
        token,
        sinks,
        size,
        cpuMs: () => cpuMs(server.pid),
        log: (message) => o.log(`${o.database}: fan-out: ${message}`),
      });
      return {
        rows: [{
          database: o.database,
          scenario: `one post to ${size.followers} followers on ${size.servers} servers ` +
            `(deliveries/s to the last; ms to each healthy server)`,
          requestsPerSecond: Math.round(size.servers / (result.lastDelivery / 1000)),
          p50: result.healthy.p50,
          p99: result.healthy.p99,
          errors: result.missed,
        }],
        print: () => printFanout(o.database, result),
      };
    } finally {
      await server.stop();
    }
  } finally {
    await sinks.close();
  }
}
