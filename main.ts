/**
 * Entry point: `deno task start`. Reads the configuration, opens the database
 * (applying migrations), then serves HTTP and/or runs the queue worker
 * according to ROLE. Stops cleanly on SIGINT/SIGTERM, also during start-up.
 */
import { getLogger } from "@logtape/logtape";
import { ConfigError, loadConfig } from "./config.ts";
import { setupLogging } from "./logging.ts";
import { createRookery, type Rookery } from "./rookery.ts";
import { adminPaths, type AdminSocket, startAdminSocket } from "./admin/socket.ts";
import { claimPidFile } from "./admin/client.ts";
import { VERSION_STRING } from "./version.ts";
import { IdleMemoryRelease } from "./process/idle_memory.ts";
import { surviveLostConnections } from "./db/postgres_transactions.ts";

const logger = getLogger(["rookery"]);

async function main(): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      return 2;
    }
    throw error;
  }
  await setupLogging({ level: config.logLevel, json: config.logFormat === "json" });
  surviveLostConnections((error) =>
    logger.warn("A lost database connection's error reached no handler: {error}", { error })
  );

  // Listen for stop signals first: a stop asked for during start-up (opening
  // PGlite takes seconds) is honoured as soon as start-up is done.
  const { promise: stopped, resolve: stop } = Promise.withResolvers<void>();
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => stop());

  await Deno.mkdir(config.dataDir, { recursive: true });
  let release: (() => Promise<void>) | null = null;
  if (!config.databaseUrl) {
    // The embedded database has a single owner: claim the data directory
    // before opening it, so neither a second server nor the admin command
    // line opens it at the same time.
    const claim = await claimPidFile(adminPaths(config.dataDir).pid);
    if ("heldBy" in claim) {
      logger.fatal("Another Rookery process (pid {pid}) is using {dir}.", {
        pid: claim.heldBy,
        dir: config.dataDir,
      });
      return 1;
    }
    release = claim.release;
    if (config.role === "web") {
      logger.warn("ROLE=web on the embedded database: nothing will deliver queued activities.");
    }
  }

  let rookery: Rookery;
  try {
    rookery = await createRookery(config);
  } catch (error) {
    logger.fatal("Could not open the database: {error}", { error });
    await release?.();
    return 1;
  }
  logger.info("Rookery {version} on {db}, role {role}.", {
    version: VERSION_STRING,
    db: rookery.ctx.database.kind,
    role: config.role,
  });

  let server: Deno.HttpServer | null = null;
  if (config.role !== "worker") {
    server = Deno.serve({
      port: config.port,
      hostname: config.bindAddress,
      onListen: ({ hostname, port }) =>
        logger.info("Listening on http://{hostname}:{port}/ as {origin}", {
          hostname,
          port,
          origin: config.origin,
        }),
    }, rookery.fetch);
  }
  if (config.role !== "web") rookery.startWorker();
  // Start-up's garbage and whatever a burst of requests grew, given back when quiet.
  const idleMemory = new IdleMemoryRelease().start();
  const admin: AdminSocket | null = await startAdminSocket(rookery.ctx);

  await stopped;
  logger.info("Shutting down.");
  // Open streams would keep the server's shutdown waiting.
  idleMemory.close();
  await rookery.closeStreams();
  await server?.shutdown();
  await admin?.close();
  await rookery.close();
  await release?.();
  return 0;
}

Deno.exit(await main());
