/**
 * Progress of admin jobs that walk many rows, in two halves:
 *
 * - {@link ProgressTracker}: on the side that does the work (the server
 *   behind the admin socket, or the command line itself). It counts and
 *   reports states to a sink, at most every {@link REPORT_INTERVAL_MS}, so a
 *   tight loop does not flood the socket.
 * - {@link progressRenderer}: on the operator's side. On a terminal it
 *   redraws one line in place (label, count/total, percentage, rate, ETA);
 *   otherwise (a log, a pipe, cron) it prints a plain line now and then, plus
 *   the first and the last, so a log shows the job without a wall of lines.
 *
 * Both write to stderr only: stdout stays the command's result for scripts.
 * Written here rather than taken from npm: the few well-known bar libraries
 * are Node-stream-centric and larger than this whole module.
 */

/** One report of a job's progress; also what crosses the admin socket. */
export interface ProgressState {
  label: string;
  done: number;
  total: number;
  /** Milliseconds since the job started (the worker's clock). */
  elapsedMs: number;
  finished: boolean;
}

/** Where a tracker sends its states. */
export type ProgressSink = (state: ProgressState) => void;

/** Least time between two reports from a tracker (the last one always goes). */
const REPORT_INTERVAL_MS = 200;
/** Least time between two plain lines when stderr is not a terminal. */
const PLAIN_INTERVAL_MS = 5_000;

/** Counts a job's work and reports it to a sink. */
export class ProgressTracker {
  #done = 0;
  #started = performance.now();
  #lastReport = -Infinity;

  constructor(
    readonly label: string,
    private total: number,
    private readonly sink: ProgressSink | undefined,
  ) {
    this.#report(false, true);
  }

  /** Rows counted so far. */
  get done(): number {
    return this.#done;
  }

  /** Counts `n` more rows; reports when the interval has passed. */
  tick(n = 1): void {
    this.#done += n;
    if (this.#done > this.total) this.total = this.#done;
    this.#report(false, false);
  }

  /** Reports the final state (always). */
  finish(): void {
    this.#report(true, true);
  }

  #report(finished: boolean, force: boolean): void {
    if (!this.sink) return;
    const now = performance.now();
    if (!force && now - this.#lastReport < REPORT_INTERVAL_MS) return;
    this.#lastReport = now;
    this.sink({
      label: this.label,
      done: this.#done,
      total: this.total,
      elapsedMs: Math.round(now - this.#started),
      finished,
    });
  }
}

/** "1.2k" style counts keep the line short. */
function rate(perSecond: number): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return "-";
  return perSecond >= 1000 ? `${(perSecond / 1000).toFixed(1)}k/s` : `${Math.round(perSecond)}/s`;
}

function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "-";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, "0")}m`;
}

/** The text of one state: label, count/total, percentage, rate and ETA (or time taken). */
export function describeProgress(state: ProgressState, barWidth = 0): string {
  const { label, done, total, elapsedMs, finished } = state;
  const fraction = total > 0 ? Math.min(1, done / total) : finished ? 1 : 0;
  const perSecond = elapsedMs > 0 ? done / (elapsedMs / 1000) : 0;
  const bar = barWidth > 0
    ? `[${"#".repeat(Math.round(fraction * barWidth)).padEnd(barWidth, ".")}] `
    : "";
  const tail = finished
    ? `done in ${duration(elapsedMs)}`
    : `ETA ${perSecond > 0 ? duration(((total - done) / perSecond) * 1000) : "-"}`;
  return `${label}: ${bar}${done}/${total} (${Math.floor(fraction * 100)}%), ${
    rate(perSecond)
  }, ${tail}`;
}

/** Something that takes bytes synchronously, like Deno.stderr. */
export interface ProgressStream {
  writeSync(data: Uint8Array): number;
}

/**
 * A sink that shows states on a stream: redrawn in place on a terminal,
 * plain periodic lines otherwise.
 */
export function progressRenderer(
  stream: ProgressStream = Deno.stderr,
  isTerminal = Deno.stderr.isTerminal(),
): ProgressSink {
  const encoder = new TextEncoder();
  const write = (text: string) => {
    const data = encoder.encode(text);
    for (let offset = 0; offset < data.length;) offset += stream.writeSync(data.subarray(offset));
  };
  let lastPlain = -Infinity;
  let lastLabel = "";
  return (state) => {
    if (isTerminal) {
      // \r and "erase to end of line": one line that updates, kept when finished.
      write(`\r${describeProgress(state, 24)}\x1b[K${state.finished ? "\n" : ""}`);
      return;
    }
    const now = performance.now();
    const first = state.label !== lastLabel;
    if (!first && !state.finished && now - lastPlain < PLAIN_INTERVAL_MS) return;
    lastLabel = state.label;
    lastPlain = now;
    write(`${describeProgress(state)}\n`);
  };
}
