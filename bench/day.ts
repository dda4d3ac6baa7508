/**
 * The day's-mix scenario (`BENCH_ONLY=day`, both databases): what
 * BENCH_DAY_USERS active users (default 1,000) do to the server, at the rate
 * they do it in the busiest hour, open-loop, and what that costs.
 *
 * Per active user per day ({@link PER_USER_PER_DAY}): home timeline and
 * notification reads, posts, favourites, follows, and Create(Note)s from
 * the remote accounts they follow, signed by a fake peer on loopback
 * (tests/fixtures/fake_peer.ts). Each of these runs at
 * users × per day × BENCH_DAY_PEAK (default 3: the busiest hour against
 * the day's average) / 86,400 per second, evenly spaced, each request from a
 * random user; every user also holds one `user` streaming socket for the
 * whole run, so posts and inbound notes reach sockets as they would.
 *
 * Data, added to the common seed (seed.ts): a token for each of `bench0`
 * … (users − 1), each following the next 10 of them and 5 of
 * BENCH_DAY_REMOTES remote accounts (default 200) on the fake peer.
 *
 * Measured over BENCH_DAY_SECONDS (default 300): per kind of request, the
 * count, p50 and p99 from its due time to its answer (to the 202 for
 * inbound), and errors; the server process's CPU time over the run as a
 * share of one core (/proc/<pid>/stat), and per request.
 */
import { sql } from "drizzle-orm";
import type { Database } from "../db/connection.ts";
import { createAccessToken, createApplication } from "../actors/oauth/tokens.ts";
import { ALL_SCOPES } from "../model/scopes.ts";
import { type InboundPeer, type Prepared, startInboundPeer } from "./inbound.ts";
import { percentile } from "./paced.ts";
import { insertFollows, insertRemoteAccounts } from "./remote_accounts.ts";
import { SocketPool } from "./streaming_pool.ts";

/** What one active user does in a day (Mastodon-app usage, a heavy reader). */
export const PER_USER_PER_DAY = {
  home: 100,
  notifications: 20,
  post: 5,
  favourite: 20,
  follow: 1,
  inbound: 50,
} as const;

export type Kind = keyof typeof PER_USER_PER_DAY;

export interface DaySize {
  users: number;
  remotes: number;
  peak: number;
  seconds: number;
}

export interface DaySeed {
  tokens: string[];
  /** bench0 …'s account ids, for follows. */
  accountIds: string[];
}

/** Remote accounts are `friend0` … on the peer; the peer starts first, to seed them. */
export async function startDayPeer(server: string, size: DaySize): Promise<InboundPeer> {
  const gen = await startInboundPeer(server, "bench0", { senders: size.remotes, name: "friend" });
  // Favourites of its notes are delivered to it.
  gen.peer.route("/inbox", () => new Response(null, { status: 202 }));
  return gen;
}

/** Tokens for the users, and their follows of each other and of the remote accounts. */
export async function seedDay(
  database: Database,
  size: DaySize,
  peer: { origin: string; publicKeyPem: string },
): Promise<DaySeed> {
  const remote = BigInt(Date.now() - 46 * 86_400_000) << 16n;
  await insertRemoteAccounts(database, {
    base: remote,
    origins: [peer.origin],
    count: size.remotes,
    prefix: "friend",
    publicKeyPem: peer.publicKeyPem,
  });
  // bench0 … (users − 1) of the common seed, with i their number.
  const local = sql`(SELECT id, substr(username, 6)::int AS i FROM accounts
    WHERE domain IS NULL AND username ~ '^bench[0-9]+$'
      AND substr(username, 6)::int < ${size.users}::int)`;
  const rows = await database.rows<{ account_id: string; user_id: string }>(sql`
    SELECT a.id::text AS account_id, u.id::text AS user_id
    FROM ${local} a JOIN users u ON u.account_id = a.id ORDER BY a.i`);
  await insertFollows(
    database,
    BigInt(Date.now() - 47 * 86_400_000) << 16n,
    sql`SELECT a.id AS follower, b.id AS target FROM ${local} a
        CROSS JOIN generate_series(1, 10) k
        JOIN ${local} b ON b.i = (a.i + k) % ${rows.length}::int
      UNION ALL
      SELECT a.id, ${remote}::bigint + ((((a.i * 5 + k) % ${size.remotes}::int)) << 16)
        FROM ${local} a CROSS JOIN generate_series(0, 4) k`,
  );
  const { application } = await createApplication(database.db, {
    name: "Rookery day benchmark",
    redirectUris: ["urn:ietf:wg:oauth:2.0:oob"],
    scopes: [...ALL_SCOPES],
  });
  const tokens: string[] = [];
  for (const row of rows) {
    tokens.push(
      (await createAccessToken(database.db, {
        applicationId: application.id,
        userId: row.user_id,
        scopes: ["read", "write", "follow"],
      })).token,
    );
  }
  return { tokens, accountIds: rows.map((r) => r.account_id) };
}

export interface KindResult {
  kind: Kind;
  perSecond: number;
  count: number;
  p50: number;
  p99: number;
  errors: number;
}

export interface DayResult {
  size: DaySize;
  kinds: KindResult[];
  /** Every request of the run. */
  all: { count: number; p50: number; p99: number; errors: number };
  /** Server CPU over the run / wall time, % of one core. */
  cpuSharePercent: number;
  serverCpuMsPerRequest: number;
}

interface Event {
  kind: Kind;
  due: number;
}

/** Every request of the run, evenly spaced per kind, in due order (offsets in ms). */
function schedule(size: DaySize): Event[] {
  const events: Event[] = [];
  for (const [kind, perDay] of Object.entries(PER_USER_PER_DAY) as [Kind, number][]) {
    const rate = size.users * perDay * size.peak / 86_400;
    const n = Math.floor(rate * size.seconds);
    // A random phase per kind, so the kinds do not all fall due together.
    const phase = Math.random() * 1000 / rate;
    for (let i = 0; i < n; i++) events.push({ kind, due: phase + i * 1000 / rate });
  }
  return events.sort((a, b) => a.due - b.due);
}

/** What each kind of request does; the pool holds status ids seen, to favourite. */
function requester(url: string, seeded: DaySeed, inbound: Prepared[]) {
  const pool: string[] = [];
  let sentInbound = 0;
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const as = (token: string, init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { authorization: `Bearer ${token}`, ...init.headers },
  });
  const remember = async (res: Response) => {
    const body = await res.json().catch(() => null);
    for (const s of Array.isArray(body) ? body : body ? [body] : []) {
      if (typeof s?.id === "string" && pool.length < 1000) pool.push(s.id);
    }
  };
  const requests: Record<Kind, () => Promise<Response>> = {
    home: () => fetch(`${url}/api/v1/timelines/home?limit=40`, as(pick(seeded.tokens))),
    notifications: () => fetch(`${url}/api/v1/notifications?limit=40`, as(pick(seeded.tokens))),
    post: () =>
      fetch(
        `${url}/api/v1/statuses`,
        as(pick(seeded.tokens), {
          method: "POST",
          body: new URLSearchParams({ status: `A day's post ${crypto.randomUUID()}` }),
        }),
      ),
    favourite: () =>
      fetch(
        `${url}/api/v1/statuses/${pick(pool)}/favourite`,
        as(pick(seeded.tokens), { method: "POST" }),
      ),
    follow: () => {
      // Someone other than oneself (following oneself is refused).
      const n = seeded.tokens.length;
      const user = Math.floor(Math.random() * n);
      const target = (user + 1 + Math.floor(Math.random() * (n - 1))) % n;
      return fetch(
        `${url}/api/v1/accounts/${seeded.accountIds[target]}/follow`,
        as(seeded.tokens[user], { method: "POST" }),
      );
    },
    inbound: () => {
      const { url, init } = inbound[sentInbound++ % inbound.length];
      return fetch(url, init);
    },
  };
  return {
    pool,
    async send(kind: Kind): Promise<boolean> {
      const res = await requests[kind]();
      if (kind === "home" || kind === "post") await remember(res);
      else await res.arrayBuffer();
      return kind === "inbound" ? res.status === 202 : res.ok;
    },
  };
}

/** The day's mix against a running server; `peer` is {@link startDayPeer}'s, seeded. */
export async function dayScenario(o: {
  url: string;
  seeded: DaySeed;
  peer: InboundPeer;
  size: DaySize;
  cpuMs(): number;
  log(message: string): void;
}): Promise<DayResult> {
  const events = schedule(o.size);
  const inboundCount = events.filter((e) => e.kind === "inbound").length;
  o.log(`signing ${inboundCount} deliveries from ${o.size.remotes} remote accounts`);
  const inbound = await o.peer.sign(Math.max(1, inboundCount), `day-${Date.now()}`);
  const r = requester(o.url, o.seeded, inbound);
  // Statuses to favourite, and the request paths warmed.
  for (const token of o.seeded.tokens.slice(0, 20)) {
    const res = await fetch(`${o.url}/api/v1/timelines/public?limit=40`, {
      headers: { authorization: `Bearer ${token}` },
    });
    for (const s of await res.json()) r.pool.push(s.id);
  }
  // One note from each remote account first: the server fetches its key once,
  // as a running server has it, and every path is warm.
  for (const { url, init } of await o.peer.sign(o.size.remotes, `day-warm-${Date.now()}`)) {
    await (await fetch(url, init)).body?.cancel();
  }
  for (let i = 0; i < 20; i++) {
    for (const kind of ["home", "notifications", "post", "favourite"] as const) await r.send(kind);
  }
  o.log(`opening ${o.seeded.tokens.length} streaming sockets`);
  // In a thread of their own: the frames they read do not delay this one's schedule.
  const sockets = await SocketPool.open(o.url, o.seeded.tokens);
  try {
    o.log(`${events.length} requests over ${o.size.seconds} s`);
    const latencies = new Map<Kind, number[]>();
    const errors = new Map<Kind, number>();
    const inflight = new Set<Promise<void>>();
    const cpuBefore = o.cpuMs();
    const start = performance.now() + 10;
    for (const event of events) {
      const due = start + event.due;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      const p = r.send(event.kind).then((ok) => {
        if (!ok) throw new Error("failed");
        const samples = latencies.get(event.kind) ?? [];
        samples.push(performance.now() - due);
        latencies.set(event.kind, samples);
      }).catch(() => {
        errors.set(event.kind, (errors.get(event.kind) ?? 0) + 1);
      });
      inflight.add(p);
      p.finally(() => inflight.delete(p));
    }
    await Promise.all(inflight);
    const wallMs = Math.max(performance.now() - start, o.size.seconds * 1000);
    const cpu = o.cpuMs() - cpuBefore;
    return summarize(o.size, latencies, errors, cpu, wallMs, events.length);
  } finally {
    await sockets.close();
    sockets.terminate();
  }
}

function summarize(
  size: DaySize,
  latencies: Map<Kind, number[]>,
  errors: Map<Kind, number>,
  cpuMs: number,
  wallMs: number,
  requests: number,
): DayResult {
  const round = (ms: number) => Math.round(ms * 10) / 10;
  const stats = (samples: number[]) => {
    const sorted = [...samples].sort((a, b) => a - b);
    return { p50: round(percentile(sorted, 0.5)), p99: round(percentile(sorted, 0.99)) };
  };
  const kinds = (Object.keys(PER_USER_PER_DAY) as Kind[]).map((kind) => ({
    kind,
    perSecond: round(size.users * PER_USER_PER_DAY[kind] * size.peak / 86_400),
    count: latencies.get(kind)?.length ?? 0,
    ...stats(latencies.get(kind) ?? []),
    errors: errors.get(kind) ?? 0,
  }));
  const every = [...latencies.values()].flat();
  return {
    size,
    kinds,
    all: {
      count: every.length,
      ...stats(every),
      errors: [...errors.values()].reduce((a, b) => a + b, 0),
    },
    cpuSharePercent: round(cpuMs / wallMs * 100),
    serverCpuMsPerRequest: round(cpuMs / Math.max(1, requests)),
  };
}

export function printDay(database: string, r: DayResult): void {
  const { users, peak, seconds, remotes } = r.size;
  console.log(
    `\nA day's mix, ${database}: ${users} active users at ${peak}× the day's average rate ` +
      `(the busiest hour), ${seconds} s, ${users} streaming sockets, ${remotes} remote followees:\n`,
  );
  console.log("| request | per second | count | p50 ms | p99 ms | errors |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const k of r.kinds) {
    console.log(`| ${k.kind} | ${k.perSecond} | ${k.count} | ${k.p50} | ${k.p99} | ${k.errors} |`);
  }
  console.log(`| all | | ${r.all.count} | ${r.all.p50} | ${r.all.p99} | ${r.all.errors} |`);
  console.log(
    `\nServer CPU: ${r.cpuSharePercent}% of one core over the run, ` +
      `${r.serverCpuMsPerRequest} ms per request (sockets' idle cost included).`,
  );
}
