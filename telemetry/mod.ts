/**
 * Telemetry of one Rookery process: the OpenTelemetry meter provider that
 * Rookery's instruments and Fedify's record into, read by the Prometheus
 * endpoint (METRICS_BIND, telemetry/prometheus.ts) and exported over OTLP,
 * and the tracer provider of our spans and Fedify's (telemetry/sdk.ts).
 * Built by rookery.ts and reached as ctx.telemetry: every instance has its
 * own, nothing lives at module level.
 *
 * When neither METRICS_BIND nor an OTLP endpoint is set nothing is imported
 * or measured: the instruments are the API's no-op ones and Fedify is given
 * no provider.
 */
import {
  createNoopMeter,
  type MeterProvider,
  ProxyTracerProvider,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
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
  /** Given to Fedify (its spans); undefined without an OTLP traces endpoint. */
  readonly tracerProvider: TracerProvider | undefined;
  /** Our spans (the request entrance); records nothing without traces. */
  readonly tracer: Tracer;
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
    tracerProvider: undefined,
    tracer: noTracer(),
    instruments: createInstruments(createNoopMeter()),
    observe() {},
    prometheusText: () => Promise.resolve(""),
    close: () => Promise.resolve(),
  };
}

export async function createTelemetry(config: Config): Promise<Telemetry> {
  if (!config.metrics.bind && !config.otel) return noTelemetry();
  // The SDK is loaded only when asked for (~28 MiB and 0.3 s of start-up).
  const { loadProviders } = await import("./sdk.ts");
  const providers = await loadProviders(config);
  const meter = providers.meterProvider.getMeter("rookery");
  for (const source of processGauges()) observeGauge(meter, source);
  return {
    enabled: true,
    meterProvider: providers.meterProvider,
    tracerProvider: providers.tracerProvider,
    tracer: providers.tracerProvider?.getTracer("rookery", ROOKERY_VERSION) ?? noTracer(),
    instruments: createInstruments(meter),
    observe: (source) => observeGauge(meter, source),
    prometheusText: providers.prometheusText,
    close: providers.shutdown,
  };
}

/** A tracer that records nothing (a proxy provider with no delegate). */
function noTracer(): Tracer {
  return new ProxyTracerProvider().getTracer("rookery");
}
