/**
 * Assembles one Rookery process: database, federation, HTTP application and,
 * depending on the role, the queue worker. main.ts runs it; tests run it too,
 * in-process, so they exercise exactly what production runs.
 */
import { join } from "node:path";
import { getLogger } from "@logtape/logtape";
import type { RouterRoute } from "hono/types";
import type { Config } from "./config.ts";
import type { AppContext } from "./context.ts";
import { type Database, openDatabase } from "./db/connection.ts";
import { buildFederation } from "./federation/mod.ts";
import { isInboxDelivery } from "./federation/inbox/guard.ts";
import { addressedToUs, answersAnyHost, blockedHost } from "./federation/request_host.ts";
import { createOutbox } from "./federation/outbox/mod.ts";
import { createOutboxRelay, type OutboxRelay } from "./federation/outbox/relay.ts";
import { openProcessCore } from "./process/core.ts";
import { getKeyPairs, INSTANCE_KEY_OWNER } from "./federation/dispatchers/keys.ts";
import { createApp } from "./app.ts";
import { ApiError } from "./api/errors.ts";
import { foldGetBody } from "./api/get_body.ts";
import { forwardedRequest, isForwarded } from "./api/forwarded.ts";
import { type PeriodicJobs, startPeriodicJobs } from "./jobs/periodic.ts";
import { JobQueue } from "./jobs/queue.ts";
import { runJob } from "./jobs/handlers.ts";
import { startMediaWorker } from "./actors/media/processing.ts";
import { createMediaStore } from "./actors/media/store/mod.ts";
import { createMediaUrls } from "./actors/media/urls.ts";
import { createTelemetry, noTelemetry, type Telemetry } from "./telemetry/mod.ts";
import { ANSWERED_BY, measureRequest, refusalReason, type RouteRecord } from "./telemetry/http.ts";
import { type MetricsListener, startMetricsListener } from "./telemetry/prometheus.ts";
import { databaseObserver } from "./telemetry/database.ts";
import { queueGauges } from "./jobs/queue_gauges.ts";
import { loadMediaProxyKey } from "./actors/media/proxy_key.ts";

const logger = getLogger(["rookery"]);

export interface Rookery {
  readonly ctx: AppContext;
  /** Relays the delivery intents commands record (federation/outbox/relay.ts). */
  readonly outboxRelay: OutboxRelay;
  /** The Hono application's routes, as registered (tests/security/route_scopes_test.ts walks them). */
  readonly routes: readonly RouterRoute[];
  /** The Prometheus endpoint's port, when METRICS_BIND is set (telemetry/prometheus.ts). */
  readonly metricsPort: number | null;
  /** The HTTP handler (Fedify first, then the Mastodon API and pages). */
  fetch(request: Request, info?: Deno.ServeHandlerInfo): Promise<Response>;
  /** Starts the queue worker and periodic maintenance. */
  startWorker(): void;
  /**
   * Closes this process's streaming connections (WebSocket and SSE), so that
   * an HTTP server shutting down does not wait on them; close() does it too.
   */
  closeStreams(): Promise<void>;
  close(): Promise<void>;
}

export interface CreateOptions {
  /** Use an already open database instead of opening one from the config. */
  database?: Database;
  /** Override where PGlite keeps its files ("memory://" for a throwaway database). */
  pgliteDir?: string;
  /** A migrated PGlite dump to start a fresh embedded database from (tests). */
  pgliteTemplate?: Blob;
  /** PostgreSQL pool size (the admin command line needs few connections). */
  poolSize?: number;
  /** false: measure nothing and serve no metrics (the admin command line, beside a running server). */
  telemetry?: false;
}

/** Where PGlite keeps its files inside the data directory. */
export function pgliteDirectory(config: Config): string {
  return config.dataDir.startsWith("memory://") ? config.dataDir : join(config.dataDir, "db");
}

export async function createRookery(config: Config, options: CreateOptions = {}): Promise<Rookery> {
  // First, so that the database and the federation record into it from the start.
  const telemetry = options.telemetry === false ? noTelemetry() : await createTelemetry(config);
  const poolSize = options.poolSize ?? config.dbPoolSize;
  const database = options.database ?? await openDatabase({
    databaseUrl: config.databaseUrl,
    pgliteDir: options.pgliteDir ?? pgliteDirectory(config),
    template: options.pgliteTemplate,
    templateCache: config.pgliteTemplateCache,
    poolSize,
  }).catch(async (error) => {
    await telemetry.close();
    throw error;
  });
  if (telemetry.enabled) observeProcess(telemetry, database, config, poolSize);
  const opened = openProcessCore(config, database);
  const { core } = opened;
  telemetry.observe({
    name: "rookery.streaming.connections",
    description: "Open streaming connections, by transport (websocket, sse).",
    read: async () =>
      Object.entries(await core.streamHub.countByTransport())
        .map(([transport, count]) => [count, { transport }]),
  });
  await opened.listening;
  const media = await createMediaStore(config);
  media.check().catch((error) =>
    logger.error(
      "Media storage {store} does not answer ({error}); uploads will fail until it does.",
      { store: media.description, error },
    )
  );
  const mediaUrls = createMediaUrls(config.origin, media, await loadMediaProxyKey(database.db));
  const partial = { config, database, core, media, mediaUrls, telemetry } as AppContext;
  // Rookery's own jobs ride on the federation's queue (jobs/queue.ts runs them).
  const { federation, maintain, guardInbox } = buildFederation(partial, {
    wrapQueue: (queue) => new JobQueue(queue, partial, runJob),
  });
  partial.federation = federation;
  const ctx = partial;
  // The fast path starts now, in every process that writes; the sweep runs
  // with the worker.
  const outboxRelay = core.outboxRelay = createOutboxRelay(
    database,
    core.listener,
    createOutbox(ctx),
    // PGlite has one owner process: a lease found at start is a dead one's.
    { releaseLeasesOnStart: database.kind === "pglite" },
  );
  const app = createApp(ctx);
  // The instance actor signs every outgoing fetch: make its keys before the first one.
  getKeyPairs(ctx, INSTANCE_KEY_OWNER).catch((error) =>
    logger.warn("Could not make the instance actor's keys: {error}", { error })
  );
  const abort = new AbortController();
  let worker: Promise<void> | null = null;
  let periodic: PeriodicJobs | null = null;
  // Never on the public port: its own listener (telemetry/prometheus.ts).
  const metrics: MetricsListener | null = telemetry.enabled && config.metrics.bind
    ? startMetricsListener(telemetry, config.metrics.bind)
    : null;

  const handle = entrance(ctx, app, guardInbox);

  return {
    ctx,
    outboxRelay,
    routes: app.routes,
    metricsPort: metrics?.port ?? null,
    fetch(request, info) {
      if (!telemetry.enabled) return handle(request, info, { route: null });
      return measureRequest(telemetry, request, (record) => handle(request, info, record));
    },
    startWorker() {
      if (worker) return;
      logger.info("Starting the queue worker.");
      worker = federation.startQueue(ctx, { signal: abort.signal }).catch((error) => {
        if (!abort.signal.aborted) logger.error("Queue worker stopped: {error}", { error });
      });
      startMediaWorker(ctx, abort.signal);
      // Scans, purges and refreshes, each on its own schedule (the table is jobs/periodic.ts).
      periodic = startPeriodicJobs({ ctx, maintainFederationStore: maintain });
      // Intents a crash, a failed enqueue or a process without a worker left.
      outboxRelay.startSweep();
    },
    async closeStreams() {
      await opened.closeStreams();
    },
    async close() {
      await opened.closeStreams();
      abort.abort();
      await periodic?.stop();
      // No new deliveries are queued while the worker finishes its jobs.
      await outboxRelay.stop();
      if (worker) await worker;
      // The rest of the core, its LISTEN last (process/core.ts).
      await opened.close();
      await media.close();
      await metrics?.close();
      database.queries.observer = null;
      if (!options.database) await database.close();
      // Last, after the shutdown's own queries.
      await telemetry.close();
    },
  };
}

/** The gauges and hooks of a process whose metrics are on. */
function observeProcess(
  telemetry: Telemetry,
  database: Database,
  config: Config,
  poolSize: number,
): void {
  const system = database.kind === "pglite" ? "pglite" : "postgresql";
  const observer = databaseObserver(telemetry.instruments, system, database.pglite ? 1 : poolSize);
  database.queries.observer = observer;
  for (const gauge of observer.gauges()) telemetry.observe(gauge);
  // Workers report the queue; web processes never run the aggregate.
  if (config.role !== "web") {
    for (const gauge of queueGauges(database)) {
      telemetry.observe(gauge);
    }
  }
}

/** An inbox delivery the guard refused (rookery.inbox.activities). */
function countRefusal(telemetry: Telemetry, status: number): void {
  telemetry.instruments.inboxActivities.add(1, {
    outcome: "refused",
    reason: refusalReason(status),
  });
}

/**
 * The HTTP entrance, before the application: GET bodies, proxy headers, our
 * own host name only, the inbox guard. `record` receives who answered when
 * it is not a route of the application (the request metrics).
 */
function entrance(
  ctx: AppContext,
  app: { fetch: ReturnType<typeof createApp>["fetch"] },
  guardInbox: (request: Request) => Promise<Request | Response>,
) {
  const { config, telemetry } = ctx;
  return async (
    request: Request,
    info: Deno.ServeHandlerInfo | undefined,
    record: RouteRecord,
  ): Promise<Response> => {
    // Only the connection's own request can be upgraded to a WebSocket.
    const connectionRequest = request;
    // A GET's body (Mastodon.py sends some parameters that way) is only
    // readable on the request Deno's server made: fold it in first.
    try {
      request = await foldGetBody(request, config.limits.maxBodyBytes);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return Response.json({ error: error.message }, { status: error.status });
    }
    // Behind a TLS-terminating proxy, signatures cover the public URL
    // (RFC 9421 @target-uri includes the scheme): rebuild it first.
    if (config.trustProxy && isForwarded(request)) request = forwardedRequest(request);
    // Only our own name is answered: a request (and a signature) for
    // another host goes no further (federation/request_host.ts).
    if (!answersAnyHost(request) && !addressedToUs(request, config.origin)) {
      record.route = ANSWERED_BY.host;
      return blockedHost();
    }
    if (isInboxDelivery(request)) {
      const checked = await guardInbox(request);
      if (checked instanceof Response) {
        record.route = ANSWERED_BY.inbox;
        countRefusal(telemetry, checked.status);
        return checked;
      }
      request = checked;
      telemetry.instruments.inboxActivities.add(1, { outcome: "accepted" });
    }
    return await app.fetch(request, { info, connectionRequest, route: record });
  };
}
