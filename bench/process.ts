/**
 * Process-level figures of `deno task bench`:
 *
 * - the hello-world ceiling (bench/hello.ts) at full speed, the yardstick
 *   for the cheapest API call;
 * - idle RSS: a fresh server, 100 ordinary requests, a few seconds of rest,
 *   then VmRSS from /proc (what a small instance costs between visits);
 * - start-up: `deno task start` exactly as an operator types it, on a fresh
 *   data directory (PGlite: the database is created and migrated), timed
 *   from the spawn to the first answer to GET /health.
 */
import autocannon from "autocannon";

const ROOT = new URL("..", import.meta.url).pathname;
const HELLO = new URL("./hello.ts", import.meta.url).pathname;

export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

export function rssMiB(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return Math.round(kb / 1024);
  } catch {
    return 0;
  }
}

/** Polls `url` until it answers 200, every `everyMs`; false after `timeoutMs`. */
export async function waitForAnswer(url: string, everyMs: number, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      if (res.ok) return true;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return false;
}

/** Requests per second of the hello-world server under autocannon (32 connections). */
export async function ceiling(seconds: number, v8Flags: string): Promise<number> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", v8Flags, HELLO, String(port)],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  try {
    const url = `http://127.0.0.1:${port}/`;
    if (!await waitForAnswer(url, 50, 30_000)) {
      throw new Error("the hello-world server did not start");
    }
    await autocannon({ url, connections: 32, duration: 2 }); // warm up
    const result = await autocannon({ url, connections: 32, duration: seconds });
    return Math.round(result.requests.average);
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

/**
 * RSS of the server `pid` after `count` ordinary requests (verify_credentials,
 * home timeline, instance, public timeline in turn) and `restMs` of rest.
 */
export async function idleRss(
  url: string,
  pid: number,
  token: string,
  count = 100,
  restMs = 5000,
): Promise<number> {
  const paths = [
    "/api/v1/accounts/verify_credentials",
    "/api/v1/timelines/home?limit=40",
    "/api/v2/instance",
    "/api/v1/timelines/public?limit=20",
  ];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${url}${paths[i % paths.length]}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${paths[i % paths.length]} answered ${res.status}`);
  }
  await new Promise((r) => setTimeout(r, restMs));
  return rssMiB(pid);
}

/** Process ids below `pid` (its children, theirs…), from /proc. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...children.get(ppid) ?? [], Number(entry.name)]);
    } catch { /* gone */ }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/**
 * Milliseconds from spawning `deno task start` (fresh DATA_DIR, PGlite) to
 * its first 200 on GET /health, polled every 10 ms; one figure per run.
 */
export async function startupTimes(runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dataDir = await Deno.makeTempDir({ prefix: "rookery-bench-start-" });
    const port = freePort();
    const started = performance.now();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "start"],
      cwd: ROOT,
      env: {
        PORT: String(port),
        BIND: "127.0.0.1",
        ORIGIN: `http://localhost:${port}`,
        DATA_DIR: dataDir,
        LOG_LEVEL: "error",
      },
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      const ok = await waitForAnswer(`http://127.0.0.1:${port}/health`, 10, 60_000);
      if (!ok) throw new Error("deno task start gave no answer within 60 s");
      times.push(Math.round(performance.now() - started));
    } finally {
      // `deno task` runs the server as its child: stop that one first.
      for (const pid of descendants(child.pid).reverse()) {
        try {
          Deno.kill(pid, "SIGTERM");
        } catch { /* gone */ }
      }
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  }
  return times;
}

/** What {@link printProcess} reports for one database. */
export interface ProcessFigures {
  database: string;
  verifyCredentials: number;
  idleRss: number;
  inbound?: {
    fullSpeed: { sent: number; answered202: number; stored: number; acceptedPerSecond: number };
    fixedRate: { rate: number; sent: number; answered202: number; stored: number; drainMs: number };
    storedTotal: number;
  };
  notesInDatabase?: number;
}

/** The summary tables: ceiling ratio, inbound accounting, idle RSS, start-up. */
export function printProcess(helloWorld: number, figures: ProcessFigures[], starts: number[]) {
  console.log(`\nDeno + Hono hello-world ceiling: ${helloWorld} requests/s (32 connections)\n`);
  console.log(
    "| database | verify_credentials/s | of the ceiling | idle RSS after 100 requests (MiB) |",
  );
  console.log("|---|---:|---:|---:|");
  for (const f of figures) {
    const ratio = helloWorld ? (100 * f.verifyCredentials / helloWorld).toFixed(2) : "?";
    console.log(`| ${f.database} | ${f.verifyCredentials} | ${ratio}% | ${f.idleRss} |`);
  }
  console.log(
    "\n| database | inbound run | sent | answered 202 | stored | drained after the last send (ms) |",
  );
  console.log("|---|---|---:|---:|---:|---:|");
  for (const f of figures) {
    if (!f.inbound) continue;
    const { fullSpeed: a, fixedRate: b } = f.inbound;
    console.log(`| ${f.database} | full speed | ${a.sent} | ${a.answered202} | ${a.stored} | |`);
    console.log(
      `| ${f.database} | ${b.rate}/s | ${b.sent} | ${b.answered202} | ${b.stored} | ${b.drainMs} |`,
    );
  }
  for (const f of figures) {
    if (!f.inbound) continue;
    console.log(
      `\n${f.database}: the server reported ${f.inbound.storedTotal} notes of the sender (warm-up ` +
        `included); ${f.notesInDatabase ?? "?"} rows in the database afterwards.`,
    );
  }
  if (starts.length) {
    const sorted = [...starts].sort((x, y) => x - y);
    console.log(
      `\n\`deno task start\`, fresh PGlite data directory, to the first answer: ` +
        `${sorted.join(", ")} ms (median ${sorted[Math.floor(sorted.length / 2)]} ms)`,
    );
  }
  console.log(`\nLoad average at the end: ${Deno.readTextFileSync("/proc/loadavg").trim()}`);
}
