/**
 * The OpenTelemetry SDK, loaded only when something is measured (METRICS_BIND
 * or an OTLP endpoint): one meter provider feeding the Prometheus reader and
 * the OTLP metric exporter, and one tracer provider exporting spans over
 * OTLP. Exporters are given their URL, headers and protocol from config.ts;
 * the packages never read the environment themselves.
 */
import { context, type MeterProvider, type TracerProvider } from "@opentelemetry/api";
import type { Config, OtelConfig } from "../config.ts";
import { ROOKERY_VERSION } from "../version.ts";

export interface Providers {
  meterProvider: MeterProvider;
  tracerProvider: TracerProvider | undefined;
  /** Prometheus text of the current values; "" without METRICS_BIND. */
  prometheusText(): Promise<string>;
  /** Flushes what is pending and stops the exporters. */
  shutdown(): Promise<void>;
}

export async function loadProviders(config: Config): Promise<Providers> {
  const [{ MeterProvider, PeriodicExportingMetricReader }, { resourceFromAttributes }] =
    await Promise.all([
      import("@opentelemetry/sdk-metrics"),
      import("@opentelemetry/resources"),
    ]);
  const otel = config.otel;
  const resource = resourceFromAttributes({
    ...otel?.resourceAttributes,
    "service.name": otel?.serviceName ?? "rookery",
    "service.version": ROOKERY_VERSION,
    "service.instance.id": crypto.randomUUID(),
    "rookery.role": config.role,
  });
  const readers = [];
  let prometheusText = () => Promise.resolve("");
  if (config.metrics.bind) {
    const { PrometheusExporter, PrometheusSerializer } = await import(
      "@opentelemetry/exporter-prometheus"
    );
    const reader = new PrometheusExporter({ preventServerStart: true });
    const serializer = new PrometheusSerializer();
    prometheusText = async () => serializer.serialize((await reader.collect()).resourceMetrics);
    readers.push(reader);
  }
  if (otel?.metrics) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: await metricExporter(otel, otel.metrics.url),
        exportIntervalMillis: otel.metrics.intervalMs,
        exportTimeoutMillis: Math.min(otel.metrics.intervalMs, 30_000),
      }),
    );
  }
  const meterProvider = new MeterProvider({ resource, readers });
  const tracer = otel?.traces ? await tracing(otel, otel.traces, resource) : undefined;
  return {
    meterProvider,
    tracerProvider: tracer,
    prometheusText,
    async shutdown() {
      await Promise.allSettled([tracer?.shutdown(), meterProvider.shutdown()]);
    },
  };
}

async function tracing(
  otel: OtelConfig,
  traces: NonNullable<OtelConfig["traces"]>,
  resource: import("@opentelemetry/resources").Resource,
) {
  const [{ BasicTracerProvider, BatchSpanProcessor }, { AsyncLocalStorageContextManager }] =
    await Promise.all([
      import("@opentelemetry/sdk-trace-base"),
      import("@opentelemetry/context-async-hooks"),
    ]);
  // The one process-global the OTel API requires: without a context manager
  // Fedify's spans would not nest under ours. Registering again is refused
  // and harmless (several test instances in one process); it holds no data.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporterOptions = { url: traces.url, headers: otel.headers, timeoutMillis: 10_000 };
  const { OTLPTraceExporter } = otel.protocol === "http/json"
    ? await import("@opentelemetry/exporter-trace-otlp-http")
    : await import("@opentelemetry/exporter-trace-otlp-proto");
  return new BasicTracerProvider({
    resource,
    sampler: await sampler(otel.sampler),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter(exporterOptions), {
        scheduledDelayMillis: traces.scheduledDelayMs,
      }),
    ],
  });
}

async function metricExporter(otel: OtelConfig, url: string) {
  const options = { url, headers: otel.headers, timeoutMillis: 10_000 };
  const { OTLPMetricExporter } = otel.protocol === "http/json"
    ? await import("@opentelemetry/exporter-metrics-otlp-http")
    : await import("@opentelemetry/exporter-metrics-otlp-proto");
  return new OTLPMetricExporter(options);
}

async function sampler({ kind, ratio }: OtelConfig["sampler"]) {
  const {
    AlwaysOffSampler,
    AlwaysOnSampler,
    ParentBasedSampler,
    TraceIdRatioBasedSampler,
  } = await import("@opentelemetry/sdk-trace-base");
  const root = kind.endsWith("traceidratio")
    ? new TraceIdRatioBasedSampler(ratio)
    : kind.endsWith("always_off")
    ? new AlwaysOffSampler()
    : new AlwaysOnSampler();
  return kind.startsWith("parentbased_") ? new ParentBasedSampler({ root }) : root;
}
