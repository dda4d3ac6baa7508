/**
 * An open-loop load generator for the fixed-rate scenario: request i is due
 * at start + i / rate, whatever happened to the earlier ones, and its latency
 * is counted from when it was due, not from when it was sent. So a slow
 * server (or a generator that fell behind) shows up in the percentiles
 * instead of quietly lowering the offered rate.
 *
 * autocannon's own rate limit is not used for this: it lets each connection
 * send its share of a second's requests back to back at the start of the
 * second and then idle, so "200 requests/s" arrives as a burst of 200 every
 * second. Its latencies then measure the queue that burst builds. (It also
 * "corrects" for coordinated omission with a 1 ms expected interval,
 * recording synthetic samples for every response slower than 1 ms.)
 * autocannon stays in use for the full-speed scenarios, where arrivals are
 * meant to be back to back.
 */

export interface PacedResult {
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
}

export interface PacedOptions {
  url: string;
  headers: Record<string, string>;
  /** Requests per second, evenly spaced. */
  rate: number;
  seconds: number;
  /**
   * Request i, when each differs (signed deliveries, made before the run so
   * that making them takes nothing from it); GET `url` otherwise.
   */
  request?: (i: number) => { url: string; init: RequestInit };
  /** Which answers count as success (default any 2xx). */
  ok?: (status: number) => boolean;
}

/** The value below which `fraction` of the sorted samples fall. */
export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

export async function paced(options: PacedOptions): Promise<PacedResult> {
  const interval = 1000 / options.rate;
  const total = Math.round(options.rate * options.seconds);
  const latencies: number[] = [];
  let errors = 0;
  const inflight = new Set<Promise<void>>();

  const ok = options.ok ?? ((status: number) => status >= 200 && status < 300);
  const one = async (due: number, i: number) => {
    try {
      const made = options.request?.(i);
      const res = made
        ? await fetch(made.url, made.init)
        : await fetch(options.url, { headers: options.headers });
      await res.arrayBuffer();
      if (ok(res.status)) latencies.push(performance.now() - due);
      else errors++;
    } catch {
      errors++;
    }
  };

  const start = performance.now() + 10;
  let sent = 0;
  while (sent < total) {
    const now = performance.now();
    // Send everything that is due; if the generator was late, the latency of
    // each late request still counts from its due time.
    while (sent < total && start + sent * interval <= now) {
      const p = one(start + sent * interval, sent);
      inflight.add(p);
      p.finally(() => inflight.delete(p));
      sent++;
    }
    const next = start + sent * interval;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    requestsPerSecond: Math.round(latencies.length / elapsed),
    p50: round(percentile(latencies, 0.5)),
    p95: round(percentile(latencies, 0.95)),
    p99: round(percentile(latencies, 0.99)),
    errors,
  };
}
