/**
 * A throwaway PostgreSQL server for the benchmark, started from the binaries
 * on this machine (PATH, /usr/lib/postgresql/*\/bin), or the server named by
 * BENCH_DATABASE_URL. Returns null when neither is available.
 */
import { existsSync } from "node:fs";
import { COUNT_STATEMENTS } from "./statements.ts";
import { freePort } from "./process.ts";

export interface BenchPostgres {
  /** URL of the maintenance database (`postgres`). */
  url: string;
  stop(): Promise<void>;
}

function findBinaries(): string | null {
  const candidates: string[] = [];
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) candidates.push(dir);
  try {
    for (const entry of Deno.readDirSync("/usr/lib/postgresql")) {
      candidates.push(`/usr/lib/postgresql/${entry.name}/bin`);
    }
  } catch { /* not installed there */ }
  return candidates.find((d) => d && existsSync(`${d}/initdb`) && existsSync(`${d}/pg_ctl`)) ??
    null;
}

async function run(cmd: string[], asPostgres: boolean): Promise<void> {
  const args = asPostgres ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd;
  const out = await new Deno.Command(args[0], { args: args.slice(1), stdout: "null" }).output();
  if (!out.success) {
    throw new Error(`${cmd.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

export async function startBenchPostgres(): Promise<BenchPostgres | null> {
  const given = Deno.env.get("BENCH_DATABASE_URL");
  if (given) return { url: given, stop: async () => {} };
  const bin = findBinaries();
  if (!bin) return null;
  const root = await Deno.makeTempDir({ prefix: "rookery-bench-pg-" });
  const asPostgres = Deno.uid() === 0;
  if (asPostgres) await run(["chown", "postgres", root], false);
  // A port free now (a random one collided with other servers on a shared machine).
  const port = freePort();
  await run([`${bin}/initdb`, "-D", `${root}/data`, "-U", "postgres", "--auth=trust"], asPostgres);
  // Settings for a 2-core, 24 GiB machine; durability as in a default install.
  const options = [
    `-p ${port}`,
    `-k ${root}`,
    "-c listen_addresses=127.0.0.1",
    "-c max_connections=200",
    "-c shared_buffers=1GB",
    "-c effective_cache_size=8GB",
    "-c work_mem=16MB",
    "-c maintenance_work_mem=512MB",
    // BENCH_STATEMENTS=1: statements counted by the server (bench/statements.ts).
    ...(COUNT_STATEMENTS ? ["-c shared_preload_libraries=pg_stat_statements"] : []),
  ].join(" ");
  await run(
    [`${bin}/pg_ctl`, "-D", `${root}/data`, "-l", `${root}/log`, "-w", "-o", options, "start"],
    asPostgres,
  );
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await run([`${bin}/pg_ctl`, "-D", `${root}/data`, "-m", "fast", "stop"], asPostgres)
        .catch(() => {});
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}
