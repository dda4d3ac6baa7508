/**
 * Entry point: `deno task start`. Reads the configuration, opens the database
 * (applying migrations), then serves HTTP and/or runs the queue worker
 * according to ROLE. Stops cleanly on SIGINT/SIGTERM.
 */
import { getLogger } from "@logtape/logtape";
import { ConfigError, loadConfig } from "./config.ts";
import { setupLogging } from "./logging.ts";
import { createRookery } from "./rookery.ts";
import { startAdminSocket } from "./admin/socket.ts";
import { VERSION_STRING } from "./version.ts";

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
  await Deno.mkdir(config.dataDir, { recursive: true });
  if (config.role === "web" && !config.databaseUrl) {
    // PGlite belongs to one process, so no other process can run the worker.
    logger.warn("ROLE=web on the embedded database: nothing will deliver queued activities.");
  }
  let rookery;
  try {
    rookery = await createRookery(config);
  } catch (error) {
    logger.fatal("Could not open the database: {error}", { error });
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
  const admin = await startAdminSocket(rookery.ctx);

  const { promise: stopped, resolve: stop } = Promise.withResolvers<void>();
  for (const signal of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(signal, () => stop());
  await stopped;
  logger.info("Shutting down.");
  await admin?.close();
  await server?.shutdown();
  await rookery.close();
  return 0;
}

Deno.exit(await main());
