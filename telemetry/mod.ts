/**
 * Telemetry of one Rookery process: the OpenTelemetry meter provider that
 * Rookery's instruments and Fedify's record into, read by the Prometheus
 * endpoint (METRICS_BIND, telemetry/prometheus.ts). Built by rookery.ts and
 * reached as ctx.telemetry: every instance has its own, nothing lives at
 * module level.
 *
 * When METRICS_BIND is not set nothing is imported or measured: the
 * instruments are the API's no-op ones and Fedify is given no provider.
 */
import { createNoopMeter, type MeterProvider } from "@opentelemetry/api";
import type { Config } from "../config.ts";
import { ROOKERY_VERSION } from "../version.ts";
import {
  createInstruments,
  type GaugeSource,
  type Instruments,
  observeGauge,
  processGauges,
} from "./instruments.ts";

export type { GaugeSource, Instruments, Reading } from "./instruments.ts";

export interface Telemetry {
  /** Whether anything is measured (METRICS_BIND set). */
  readonly enabled: boolean;
  /** Given to Fedify (its delivery, inbox and queue metrics); undefined when off. */
  readonly meterProvider: MeterProvider | undefined;
  readonly instruments: Instruments;
  /** Registers a gauge read at each collection; ignored when off. */
  observe(source: GaugeSource): void;
  /** The current values in Prometheus's text format. */
  prometheusText(): Promise<string>;
  close(): Promise<void>;
}

/** A telemetry that measures nothing (metrics off, the admin command line). */
export function noTelemetry(): Telemetry {
  return {
    enabled: false,
    meterProvider: undefined,
    instruments: createInstruments(createNoopMeter()),
    observe() {},
    prometheusText: () => Promise.resolve(""),
    close: () => Promise.resolve(),
  };
}

export async function createTelemetry(config: Config): Promise<Telemetry> {
  if (!config.metrics.bind) return noTelemetry();
  // The SDK is loaded only when asked for (~28 MiB and 0.3 s of start-up).
  const [
    { MeterProvider },
    { PrometheusExporter, PrometheusSerializer },
    { resourceFromAttributes },
  ] = await Promise.all([
    import("@opentelemetry/sdk-metrics"),
    import("@opentelemetry/exporter-prometheus"),
    import("@opentelemetry/resources"),
  ]);
  const reader = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({
      "service.name": "rookery",
      "service.version": ROOKERY_VERSION,
      "rookery.role": config.role,
    }),
    readers: [reader],
  });
  const meter = provider.getMeter("rookery");
  for (const source of processGauges()) observeGauge(meter, source);
  const serializer = new PrometheusSerializer();
  return {
    enabled: true,
    meterProvider: provider,
    instruments: createInstruments(meter),
    observe: (source) => observeGauge(meter, source),
    async prometheusText() {
      const { resourceMetrics } = await reader.collect();
      return serializer.serialize(resourceMetrics);
    },
    close: () => provider.shutdown(),
  };
}
