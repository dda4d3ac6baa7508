/** One row of the benchmark's main table. */
export interface Row {
  database: string;
  scenario: string;
  requestsPerSecond: number;
  p50: number;
  /** Where measured (fixed-rate runs). */
  p95?: number;
  p99: number;
  errors: number;
  /** Rows written to rate_limit_counters per request, where measured. */
  writesPerRequest?: number;
}
