/**
 * Process-level figures of `deno task bench`:
 *
 * - the hello-world ceiling (bench/hello.ts) at full speed, the yardstick
 *   for the cheapest API call;
 * - idle RSS: a fresh server, 100 ordinary requests, a few seconds of rest,
 *   then VmRSS from /proc (what a small instance costs between visits);
 * - start-up: `deno task start` exactly as an operator types it, on a fresh
 *   data directory (PGlite: the database is created and migrated), timed
 *   from the spawn to the first answer to GET /health. The runs share an
 *   empty PGLITE_TEMPLATE_CACHE of their own: the first builds the migrated
 *   cluster (a machine's first start), the others copy it (every later fresh
 *   data directory).
 */
import autocannon from "autocannon";
import { cpuMs } from "./streaming.ts";

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

/** A full-speed run's figures and the generator that made them. */
export interface Throughput {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  tool: string;
}

/** wrk's path, when installed (Debian package `wrk`). */
function findWrk(): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/wrk`).isFile) return `${dir}/wrk`;
    } catch { /* not there */ }
  }
  return null;
}

const WRK = Deno.env.get("BENCH_NO_WRK") ? null : findWrk();

/** wrk's latency figure ("812.00us", "1.23ms", "2.01s") in ms. */
function wrkMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!m) return NaN;
  const factor = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2]]!;
  return Math.round(Number(m[1]) * factor * 10) / 10;
}

/**
 * GET `url` at full speed with 32 connections for `seconds`: with wrk (one
 * thread) when installed, since autocannon, in this process, tops out far
 * below what a hello-world serves and the ceiling would measure the client;
 * otherwise with autocannon.
 */
export async function fullSpeedGet(
  url: string,
  headers: Record<string, string>,
  seconds: number,
): Promise<Throughput> {
  if (!WRK) {
    const result = await autocannon({ url, headers, connections: 32, duration: seconds });
    return {
      requestsPerSecond: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts + result.non2xx,
      tool: "autocannon",
    };
  }
  const args = ["-t1", "-c32", `-d${seconds}s`, "--latency"];
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}: ${value}`);
  const out = await new Deno.Command(WRK, { args: [...args, url], stderr: "inherit" }).output();
  const text = new TextDecoder().decode(out.stdout);
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(text);
  if (!out.success || !rate) throw new Error(`wrk failed: ${text}`);
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0) +
    (/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)
      ?.slice(1).reduce((a, b) => a + Number(b), 0) ?? 0);
  return {
    requestsPerSecond: Math.round(Number(rate[1])),
    p50: wrkMs(/\s50%\s+(\S+)/.exec(text)?.[1] ?? ""),
    p99: wrkMs(/\s99%\s+(\S+)/.exec(text)?.[1] ?? ""),
    errors,
    tool: "wrk -t1 -c32",
  };
}

/** The `start` task in the deno.json next to `main`, as words. */
function startTask(main: string): { dir: string; commands: string[][] } {
  const dir = main.slice(0, main.lastIndexOf("/") + 1) || "./";
  const start: string = JSON.parse(Deno.readTextFileSync(`${dir}deno.json`)).tasks?.start ?? "";
  return { dir, commands: start.split("&&").map((c) => c.trim().split(/\s+/)) };
}

/**
 * The `--v8-flags=…` of the `start` task in the deno.json next to `main`, so
 * the bench runs each server (and the hello-world) as `deno task start` runs
 * that checkout: a build compared with BENCH_COMPARE_MAIN keeps its own
 * flags (docs/benchmarks.md says what the young generation's size trades).
 */
export function startV8Flags(main: string): string[] {
  const { commands } = startTask(main);
  return commands.at(-1)!.filter((arg) => arg.startsWith("--v8-flags="));
}

/**
 * The script `deno task start` runs for the checkout of `main`, after the
 * task's earlier commands ran (older checkouts built their bundle in one):
 * process/start.ts, which runs the bundled build, or `main` itself where the
 * task runs main.ts.
 */
export async function startScript(main: string): Promise<string> {
  const { dir, commands } = startTask(main);
  for (const words of commands.slice(0, -1)) {
    const out = await new Deno.Command(Deno.execPath(), { args: words.slice(1), cwd: dir })
      .output();
    if (!out.success) throw new Error(`${words.join(" ")} failed in ${dir}`);
  }
  const script = commands.at(-1)!.at(-1)!;
  return script.startsWith("/") ? script : `${dir}${script}`;
}

/** Requests per second of the hello-world server at full speed (fullSpeedGet). */
export async function ceiling(seconds: number, v8Flags: string[]): Promise<number> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net", ...v8Flags, HELLO, String(port)],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  try {
    const url = `http://127.0.0.1:${port}/`;
    if (!await waitForAnswer(url, 50, 30_000)) {
      throw new Error("the hello-world server did not start");
    }
    await fullSpeedGet(url, {}, 2); // warm up
    return (await fullSpeedGet(url, {}, seconds)).requestsPerSecond;
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

/** CPU time of `pid` and its descendants, ms (those that ended are not counted). */
function treeCpuMs(pid: number): number {
  let total = 0;
  for (const p of [pid, ...descendants(pid)]) {
    try {
      total += cpuMs(p);
    } catch { /* gone */ }
  }
  return total;
}

/** One start: wall time to the first answer, and the CPU the processes spent until then. */
export interface StartRun {
  ms: number;
  /** `deno task` and the server, user + system: what a busy machine does not distort. */
  cpuMs: number;
}

/**
 * Milliseconds from spawning `deno task start` (fresh DATA_DIR, PGlite) to
 * its first 200 on GET /health, polled every 10 ms; one figure per run.
 */
export async function startupTimes(runs: number, root = ROOT): Promise<StartRun[]> {
  const times: StartRun[] = [];
  const templateCache = await Deno.makeTempDir({ prefix: "rookery-bench-template-" });
  for (let i = 0; i < runs; i++) {
    const dataDir = await Deno.makeTempDir({ prefix: "rookery-bench-start-" });
    const port = freePort();
    const started = performance.now();
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "start"],
      cwd: root,
      env: {
        PORT: String(port),
        BIND: "127.0.0.1",
        ORIGIN: `http://localhost:${port}`,
        DATA_DIR: dataDir,
        PGLITE_TEMPLATE_CACHE: templateCache,
        LOG_LEVEL: "error",
      },
      stdout: "null",
      stderr: "null",
    }).spawn();
    try {
      const ok = await waitForAnswer(`http://127.0.0.1:${port}/health`, 10, 60_000);
      if (!ok) throw new Error("deno task start gave no answer within 60 s");
      const ms = Math.round(performance.now() - started);
      const cpu = treeCpuMs(child.pid);
      times.push({ ms, cpuMs: cpu });
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
  await Deno.remove(templateCache, { recursive: true }).catch(() => {});
  return times;
}

/** What {@link printProcess} reports for one database. */
export interface ProcessFigures {
  database: string;
  /** The hello-world ceiling, measured just before verify_credentials. */
  helloWorld: number;
  verifyCredentials: number;
  /** Server CPU per verify_credentials request, ms. */
  verifyCpuMs: number;
  idleRss: number;
  inbound?: {
    fullSpeed: {
      sent: number;
      answered202: number;
      stored: number;
      acceptedPerSecond: number;
      serverCpuMsPerNote?: number;
    };
    fixedRate: { rate: number; sent: number; answered202: number; stored: number; drainMs: number };
    storedTotal: number;
    followers: number;
    missingFromHomes?: number;
  };
  notesInDatabase?: number;
}

/** The summary tables: ceiling ratio, inbound accounting, idle RSS, start-up. */
export function printProcess(figures: ProcessFigures[], starts: StartRun[]) {
  console.log(
    "\n| database | hello-world ceiling/s | verify_credentials/s | of the ceiling | " +
      "server CPU per request (ms) | idle RSS after 100 requests (MiB) |",
  );
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const f of figures) {
    const ratio = f.helloWorld ? (100 * f.verifyCredentials / f.helloWorld).toFixed(2) : "?";
    console.log(
      `| ${f.database} | ${f.helloWorld} | ${f.verifyCredentials} | ${ratio}% | ` +
        `${f.verifyCpuMs.toFixed(3)} | ${f.idleRss} |`,
    );
  }
  console.log(
    "\n| database | inbound run | sent | answered 202 | stored | drained after the last send (ms) " +
      "| server CPU per note (ms) |",
  );
  console.log("|---|---|---:|---:|---:|---:|---:|");
  for (const f of figures) {
    if (!f.inbound) continue;
    const { fullSpeed: a, fixedRate: b } = f.inbound;
    console.log(
      `| ${f.database} | full speed | ${a.sent} | ${a.answered202} | ${a.stored} | | ` +
        `${a.serverCpuMsPerNote ?? ""} |`,
    );
    console.log(
      `| ${f.database} | ${b.rate}/s | ${b.sent} | ${b.answered202} | ${b.stored} | ${b.drainMs} | |`,
    );
  }
  for (const f of figures) {
    if (!f.inbound) continue;
    console.log(
      `\n${f.database}: the server reported ${f.inbound.storedTotal} notes of the sender(s) (warm-up ` +
        `included); ${f.notesInDatabase ?? "?"} rows in the database afterwards.` +
        (f.inbound.followers
          ? ` Notes missing from the home timelines of their ${f.inbound.followers} local ` +
            `followers: ${f.inbound.missingFromHomes}.`
          : ""),
    );
  }
  if (starts.length) {
    const [first, ...later] = starts;
    const show = (run: StartRun) => `${run.ms} ms (${run.cpuMs} ms CPU)`;
    console.log(
      `\n\`deno task start\`, fresh PGlite data directory, to the first answer: ` +
        `${show(first)} the first time (the migrated cluster built and cached)` +
        (later.length ? `; then ${later.map(show).join(", ")}` : ""),
    );
  }
  console.log(`\nLoad average at the end: ${Deno.readTextFileSync("/proc/loadavg").trim()}`);
}
