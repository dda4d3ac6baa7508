/**
 * `deno task admin <command>`: the administration command line.
 *
 * A running server owns the database (PGlite allows a single process), so the
 * command first goes to the server's admin socket. When no server answers,
 * the command line opens the database itself, runs the same command code,
 * closes the database and exits. Exit codes: 0 success, 1 failure, 2 usage.
 */
import { existsSync } from "node:fs";
import { ConfigError, loadConfig } from "../config.ts";
import type { Config } from "../config.ts";
import { createRookery, pgliteDirectory, type Rookery } from "../rookery.ts";
import { AdminClientError, askServer, claimPidFile, livePid } from "./client.ts";
import {
  type AdminEnv,
  type CommandResult,
  prepareCommand,
  withAbsolutePaths,
} from "./commands.ts";
import { adminPaths } from "./socket.ts";
import { progressRenderer } from "./progress.ts";

function failure(message: string, exitCode = 1): CommandResult {
  return { exitCode, stdout: "", stderr: `Error: ${message}\n` };
}

async function runDirect(
  config: Config,
  run: (env: AdminEnv) => Promise<CommandResult>,
): Promise<CommandResult> {
  let notice = "";
  if (!config.databaseUrl) {
    const dir = pgliteDirectory(config);
    if (!existsSync(dir)) notice = `Note: created a new, empty database in ${dir}.\n`;
  }
  // The whole process context (without web or worker), so that commands that
  // federate queue their deliveries in the database for the server's worker.
  let rookery: Rookery;
  try {
    rookery = await createRookery(config, { poolSize: 2, telemetry: false });
  } catch (error) {
    return failure(`cannot open the database: ${(error as Error).message ?? error}`);
  }
  try {
    const { database } = rookery.ctx;
    const result = await run({
      db: database.db,
      config,
      media: rookery.ctx.media,
      progress: progressRenderer(),
      app: rookery.ctx,
    });
    return { ...result, stderr: notice + result.stderr };
  } finally {
    await rookery.close().catch(() => {});
  }
}

async function main(argv: string[]): Promise<CommandResult> {
  const prepared = prepareCommand(argv);
  if (prepared.kind === "done") return prepared.result;
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) return failure(`configuration: ${error.message}`);
    throw error;
  }
  if (prepared.kind === "local") {
    return await prepared.run({ config, progress: progressRenderer() });
  }
  if (!config.databaseUrl && config.dataDir.startsWith("memory://")) {
    return failure("DATA_DIR is an in-memory database; there is nothing to administer.");
  }
  const paths = adminPaths(config.dataDir);
  const answer = await askServer(
    paths.socket,
    withAbsolutePaths(argv, Deno.cwd()),
    progressRenderer(),
  );
  if (answer.kind === "answered") return answer.result;
  const pid = await livePid(paths.pid);
  if (pid && !config.databaseUrl) return ownedElsewhere(config, pid);
  // No live server: a socket file left behind by a crash only gets in the way.
  if (answer.kind === "refused" && !pid) await Deno.remove(paths.socket).catch(() => {});
  if (config.databaseUrl) return await runDirect(config, prepared.run);
  await Deno.mkdir(config.dataDir, { recursive: true });
  const claim = await claimPidFile(paths.pid);
  if ("heldBy" in claim) return ownedElsewhere(config, claim.heldBy);
  try {
    return await runDirect(config, prepared.run);
  } finally {
    await claim.release();
  }
}

function ownedElsewhere(config: Config, pid: number): CommandResult {
  const paths = adminPaths(config.dataDir);
  return failure(
    `another Rookery process (pid ${pid}) owns the embedded database in ${config.dataDir}, ` +
      `and its admin socket ${paths.socket} does not answer (a server starting or stopping, ` +
      `or another admin command). The database cannot be opened by two processes. Try again; ` +
      `if no Rookery process runs, delete ${paths.pid}.`,
  );
}

async function write(stream: typeof Deno.stdout, text: string): Promise<void> {
  const data = new TextEncoder().encode(text);
  for (let offset = 0; offset < data.length;) offset += await stream.write(data.subarray(offset));
}

if (import.meta.main) {
  let result: CommandResult;
  try {
    result = await main(Deno.args);
  } catch (error) {
    result = error instanceof AdminClientError
      ? failure(error.message)
      : failure(`unexpected failure: ${(error as Error)?.message ?? error}`);
  }
  await write(Deno.stdout, result.stdout);
  await write(Deno.stderr, result.stderr);
  Deno.exit(result.exitCode);
}
