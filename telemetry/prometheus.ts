/**
 * The Prometheus endpoint: `GET /metrics` on its own listener (METRICS_BIND),
 * never on the public port, so the figures are only readable where the
 * operator binds them.
 */
import { getLogger } from "@logtape/logtape";
import type { Telemetry } from "./mod.ts";

const logger = getLogger(["rookery", "telemetry"]);

/** Loopback and private ranges: where metrics are not readable by the world. */
function isPrivate(hostname: string): boolean {
  return /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1$|f[cd][0-9a-f]{2}:|fe80:|localhost$)/i
    .test(hostname);
}

export interface MetricsListener {
  /** The bound port (METRICS_BIND may ask for port 0). */
  readonly port: number;
  close(): Promise<void>;
}

export function startMetricsListener(
  telemetry: Telemetry,
  bind: { hostname: string; port: number },
): MetricsListener {
  if (!isPrivate(bind.hostname)) {
    logger.warn("Metrics are readable by anyone who reaches {hostname}:{port}.", bind);
  }
  const server = Deno.serve({
    hostname: bind.hostname,
    port: bind.port,
    onListen: () => {},
  }, async (request) => {
    const path = new URL(request.url).pathname;
    if (path !== "/metrics") return new Response("Not found\n", { status: 404 });
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response(null, { status: 405, headers: { allow: "GET, HEAD" } });
    }
    return new Response(await telemetry.prometheusText(), {
      headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
    });
  });
  return {
    port: server.addr.port,
    async close() {
      await server.shutdown();
    },
  };
}
