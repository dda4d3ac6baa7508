/**
 * `deno task fuzz`: sends generated bodies to every write route of the API
 * and to both inboxes (signed and unsigned) of a real Rookery instance, and
 * fails on any 5xx, failed connection, crash or answer slower than a second.
 *
 * Settings (environment, or the same as flags: `--seed=1 --count=1000`):
 * - FUZZ_SEED (default: random, printed), FUZZ_COUNT (default 100,000),
 *   FUZZ_START (first index, default 0: a long run continues where it stopped);
 * - FUZZ_REPLAY=12,345: send only these inputs of the seed, printing each
 *   request and answer;
 * - FUZZ_DB: `pglite`, `postgres` or `both` (default: postgres when
 *   TEST_DATABASE_URL is set, else pglite). PostgreSQL is the server of
 *   TEST_DATABASE_URL, else a throwaway one from this machine's binaries
 *   (as `deno task bench` does);
 * - FUZZ_ROUTES: a regular expression over route labels (`POST /inbox`);
 * - FUZZ_CONCURRENCY (default 1), FUZZ_SLOW_MS (default 1000);
 * - FUZZ_LOG: the server's log level (`error` shows the stack of a 500; default off).
 */
import { startBenchPostgres } from "../bench/postgres.ts";
import type { Failure } from "./runner.ts";

function setting(name: string): string | undefined {
  const flag = `--${name.replace(/^FUZZ_/, "").toLowerCase()}=`;
  const arg = Deno.args.find((a) => a.startsWith(flag));
  return arg ? arg.slice(flag.length) : Deno.env.get(name);
}

const seed = Number(setting("FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31));
const count = Number(setting("FUZZ_COUNT") ?? 100_000);
const first = Number(setting("FUZZ_START") ?? 0);
const replay = setting("FUZZ_REPLAY");
const routes = setting("FUZZ_ROUTES");
const concurrency = Number(setting("FUZZ_CONCURRENCY") ?? 1);
const slowMs = Number(setting("FUZZ_SLOW_MS") ?? 1000);
const logLevel = setting("FUZZ_LOG");
const db = setting("FUZZ_DB") ?? (Deno.env.get("TEST_DATABASE_URL") ? "postgres" : "pglite");

if (db === "both") {
  // One process per database: the harness picks its database at import.
  let failed = false;
  for (const which of ["pglite", "postgres"]) {
    const status = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--cert",
        "tests/fixtures/tls/ca.pem",
        import.meta.filename!,
        ...Deno.args.filter((a) => !a.startsWith("--db=")),
      ],
      env: { FUZZ_DB: which, FUZZ_SEED: String(seed) },
    }).spawn().status;
    failed ||= !status.success;
  }
  Deno.exit(failed ? 1 : 0);
}

let stopPostgres = async () => {};
if (db === "postgres" && !Deno.env.get("TEST_DATABASE_URL")) {
  const pg = await startBenchPostgres();
  if (!pg) throw new Error("FUZZ_DB=postgres needs TEST_DATABASE_URL or PostgreSQL binaries");
  Deno.env.set("TEST_DATABASE_URL", pg.url);
  stopPostgres = pg.stop;
} else if (db === "pglite") {
  Deno.env.delete("TEST_DATABASE_URL");
}

if (logLevel) {
  const { setupLogging } = await import("../logging.ts");
  await setupLogging({ level: logLevel as "error" });
}

// Imported after the database is chosen: the harness reads it at import.
const { startTarget } = await import("./target.ts");
const { formatFailure, formatHistogram, runFuzz } = await import("./runner.ts");

const log = (m: string) => console.error(`[fuzz ${db}] ${m}`);
const indices = replay?.split(",").map((s) => Number(s.trim())) ??
  (first ? Array.from({ length: count }, (_, i) => first + i) : undefined);
log(`seed ${seed}, ${replay ? `replaying ${replay}` : `${count} inputs from index ${first}`}`);
const target = await startTarget();
const started = performance.now();
// Ctrl-C (or SIGTERM) stops sending and still prints the figures so far.
const stop = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    log("stopping: the inputs in flight finish, then the figures");
    stop.abort();
  });
}
let printed = 0;
const result = await runFuzz(target, {
  seed,
  count,
  indices,
  slowMs,
  concurrency,
  filter: routes ? new RegExp(routes) : undefined,
  verbose: !!replay,
  signal: stop.signal,
  onFailure(f: Failure) {
    if (printed++ < 200) console.log(formatFailure(f));
  },
  onProgress: (done) =>
    log(`${done} inputs, ${Math.round((performance.now() - started) / 1000)} s`),
});
await target.close();
await stopPostgres();
console.log(
  formatHistogram(
    result,
    `Fuzz on ${db}: seed ${seed}, ${result.sent} inputs, ${
      Math.round((performance.now() - started) / 1000)
    } s`,
  ),
);
if (result.failures.length) {
  const byRoute = new Map<string, number>();
  for (const f of result.failures) {
    byRoute.set(
      `${f.label} [${f.shape}] ${f.problem.split(":")[0]}`,
      (byRoute.get(`${f.label} [${f.shape}] ${f.problem.split(":")[0]}`) ?? 0) + 1,
    );
  }
  console.log(`\n${result.failures.length} failures:`);
  for (const [k, n] of byRoute) console.log(`  ${n}× ${k}`);
  Deno.exit(1);
}
Deno.exit(0);
