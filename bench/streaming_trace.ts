/** The streaming bench's per-post trace (BENCH_STREAM_TRACE). */
import type { PostingRun } from "./streaming.ts";

/**
 * With `BENCH_STREAM_TRACE=<file>`, one JSON line per post: when it was
 * sent (epoch ms, to set beside a server's own timestamps) and, from then,
 * its answer, NOTIFY, first, median and last socket. The p99 of every
 * delivery is often one or two slow posts' last sockets: this says which.
 */
export function traceEachPost(run: PostingRun, sockets: number): void {
  const file = Deno.env.get("BENCH_STREAM_TRACE");
  if (!file) return;
  const lines = run.posted.map((p) => {
    const times = [...(run.received.arrivals.get(p.id) ?? [])].filter((t) => !Number.isNaN(t))
      .map((t) => t - p.sentAt).sort((a, b) => a - b);
    const at = (q: number) => Math.round(times[Math.floor(q * (times.length - 1))] ?? NaN);
    const notified = run.notifiedAt?.get(p.id);
    return JSON.stringify({
      id: p.id,
      sentEpochMs: Math.round(performance.timeOrigin + p.sentAt),
      answered: Math.round(p.answeredAt - p.sentAt),
      notified: notified === undefined ? null : Math.round(notified - p.sentAt),
      first: at(0),
      p50: at(0.5),
      last: at(1),
      missed: sockets - times.length,
    });
  });
  Deno.writeTextFileSync(file, lines.join("\n") + "\n");
}
