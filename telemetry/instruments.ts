/**
 * The instruments Rookery records into, made from one OpenTelemetry meter.
 * When metrics are off the meter is the API's no-op one, so callers record
 * unconditionally and it costs nothing.
 */
import type { Attributes, Counter, Histogram, Meter } from "@opentelemetry/api";

/** Seconds: from a cached read (~1 ms) to a slow remote fetch. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds: one SQL statement, from an index hit to a heavy aggregate. */
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

export interface Instruments {
  /** http.server.request.duration: method, route template, status. */
  readonly httpDuration: Histogram;
  /** rookery.inbox.activities: activity type, outcome, reason of a refusal. */
  readonly inboxActivities: Counter;
  /** db.client.operation.duration: database system, first SQL keyword. */
  readonly dbDuration: Histogram;
}

export function createInstruments(meter: Meter): Instruments {
  return {
    httpDuration: meter.createHistogram("http.server.request.duration", {
      description: "Time to answer an HTTP request (to the headers, for streams).",
      unit: "s",
      advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
    }),
    inboxActivities: meter.createCounter("rookery.inbox.activities", {
      description: "Activities delivered to our inboxes, by type and outcome.",
    }),
    dbDuration: meter.createHistogram("db.client.operation.duration", {
      description: "Time one SQL statement took, by its first keyword.",
      unit: "s",
      advice: { explicitBucketBoundaries: QUERY_BUCKETS },
    }),
  };
}

/** One reading of an observable gauge. */
export type Reading = readonly [value: number, attributes?: Attributes];

/** A gauge read at each collection (queue depth, streams, pool use, memory). */
export interface GaugeSource {
  readonly name: string;
  readonly description: string;
  readonly unit?: string;
  read(): Reading[] | Promise<Reading[]>;
}

/** Registers a gauge whose value is read at each collection. */
export function observeGauge(meter: Meter, source: GaugeSource): void {
  const gauge = meter.createObservableGauge(source.name, {
    description: source.description,
    unit: source.unit,
  });
  gauge.addCallback(async (result) => {
    for (const [value, attributes] of await source.read()) result.observe(value, attributes);
  });
}

/** The process's memory, read from the runtime at each collection. */
export function processGauges(): GaugeSource[] {
  return [{
    name: "process.memory.usage",
    description: "Resident set size of the process.",
    unit: "By",
    read: () => [[Deno.memoryUsage().rss]],
  }, {
    name: "rookery.process.heap.used",
    description: "JavaScript heap in use.",
    unit: "By",
    read: () => [[Deno.memoryUsage().heapUsed]],
  }];
}
