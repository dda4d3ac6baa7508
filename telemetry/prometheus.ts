/**
 * The Prometheus endpoint: `GET /metrics` on its own listener (METRICS_BIND),
 * never on the public port, so the figures are only readable where the
 * operator binds them.
 */
import type { Telemetry } from "./mod.ts";

export interface MetricsListener {
  /** The bound port (METRICS_BIND may ask for port 0). */
  readonly port: number;
  close(): Promise<void>;
}

export function startMetricsListener(
  telemetry: Telemetry,
  bind: { hostname: string; port: number },
): MetricsListener {
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
