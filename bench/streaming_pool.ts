/**
 * The streaming bench client spread over worker threads
 * (streaming_worker.ts), so that reading ten thousand frames per post is
 * not what the figures measure: each thread holds a share of the sockets
 * and timestamps its frames as they arrive; the pool adds up how many
 * sockets have each status and, at the end, gathers every arrival time in
 * this thread's clock.
 */
import { NativePool } from "./streaming_native.ts";

/**
 * How the bench's sockets are held: a native process (streaming_native.ts,
 * the default), or Deno's WebSocket in threads (streaming_sockets.ts).
 */
export type StreamClient = "native" | "websocket";

/** What the scenario asks of the sockets, however they are held. */
export interface Pool {
  readonly size: number;
  /** A process other than the bench's whose CPU time is the client's too. */
  readonly pid?: number;
  received(id: string): number;
  close(): Promise<void>;
  results(): Promise<PoolResults>;
  terminate(): void;
}

/** Opens the sockets with `client` (threads only for the Deno clients). */
export function openPool(
  url: string,
  tokens: string[],
  client: StreamClient,
  workers?: number,
): Promise<Pool> {
  if (client === "native") return NativePool.open(url, tokens);
  return SocketPool.open(url, tokens, workers);
}

/** Everything the sockets received, gathered from the threads. */
export interface PoolResults {
  /** Status id → arrival time per socket (this thread's performance.now(); NaN: none). */
  arrivals: Map<string, Float64Array>;
  duplicates: number;
  /** Frames the shortcut read differently from a full parse (one socket per thread checks). */
  misread: number;
  refusals: Map<string, number>;
  closes: Map<string, number>;
  /** Sockets that received no update at all. */
  silent: number;
  readyStates: Map<number, number>;
}

/** Threads for `sockets` sockets: one per 2,500, at most 4 (the machine has two cores). */
export function defaultWorkers(sockets: number): number {
  return Math.max(1, Math.min(4, Math.ceil(sockets / 2500)));
}

interface Thread {
  worker: Worker;
  /** Its sockets' first index in the pool. */
  offset: number;
  size: number;
  counts: Map<string, number>;
  /** The reply each pending request waits for, by message type. */
  waiting: Map<string, (message: Record<string, unknown>) => void>;
}

const addTo = <K>(map: Map<K, number>, key: K, n: number) => map.set(key, (map.get(key) ?? 0) + n);

export class SocketPool implements Pool {
  readonly #threads: Thread[];

  private constructor(threads: Thread[], readonly size: number) {
    this.#threads = threads;
  }

  /** Opens a socket per token (`user` stream), spread over `workers` threads. */
  static async open(url: string, tokens: string[], workers = defaultWorkers(tokens.length)) {
    const per = Math.ceil(tokens.length / workers);
    const threads: Thread[] = [];
    for (let offset = 0; offset < tokens.length; offset += per) {
      const size = Math.min(per, tokens.length - offset);
      const worker = new Worker(new URL("./streaming_worker.ts", import.meta.url), {
        type: "module",
      });
      const thread: Thread = { worker, offset, size, counts: new Map(), waiting: new Map() };
      worker.onmessage = (e) => {
        const message = e.data;
        if (message.type === "counts") {
          for (const [id, n] of message.counts as [string, number][]) thread.counts.set(id, n);
          return;
        }
        const reply = message.type === "failed" ? "opened" : message.type;
        thread.waiting.get(reply)?.(message);
        thread.waiting.delete(reply);
      };
      threads.push(thread);
    }
    const pool = new SocketPool(threads, tokens.length);
    try {
      await Promise.all(threads.map(async (t) => {
        const answer = await pool.#ask(t, {
          type: "open",
          url,
          tokens: tokens.slice(t.offset, t.offset + t.size),
        }, "opened");
        if (answer.type === "failed") throw new Error(String(answer.message));
      }));
    } catch (error) {
      pool.terminate();
      throw error;
    }
    return pool;
  }

  #ask(t: Thread, message: Record<string, unknown>, reply: string) {
    return new Promise<Record<string, unknown>>((resolve) => {
      t.waiting.set(reply, resolve);
      t.worker.postMessage(message);
    });
  }

  /** How many sockets have received `id` (as of the threads' last report, ≤ 10 ms old). */
  received(id: string): number {
    let n = 0;
    for (const t of this.#threads) n += t.counts.get(id) ?? 0;
    return n;
  }

  /** Closes every socket; the results stay readable. */
  async close(): Promise<void> {
    await Promise.all(this.#threads.map((t) => this.#ask(t, { type: "close" }, "closed")));
  }

  /** Every arrival and anomaly, gathered from the threads. */
  async results(): Promise<PoolResults> {
    const out: PoolResults = {
      arrivals: new Map(),
      duplicates: 0,
      misread: 0,
      refusals: new Map(),
      closes: new Map(),
      silent: 0,
      readyStates: new Map(),
    };
    for (const t of this.#threads) {
      const r = await this.#ask(t, { type: "results" }, "results");
      // Its clock to ours.
      const shift = (r.timeOrigin as number) - performance.timeOrigin;
      for (const [id, times] of r.arrivals as [string, Float64Array][]) {
        let all = out.arrivals.get(id);
        if (!all) out.arrivals.set(id, all = new Float64Array(this.size).fill(NaN));
        for (let i = 0; i < times.length; i++) all[t.offset + i] = times[i] + shift;
      }
      out.duplicates += r.duplicates as number;
      out.misread += r.misread as number;
      out.silent += r.silent as number;
      for (const [k, n] of r.refusals as [string, number][]) addTo(out.refusals, k, n);
      for (const [k, n] of r.closes as [string, number][]) addTo(out.closes, k, n);
      for (const [k, n] of r.readyStates as [number, number][]) addTo(out.readyStates, k, n);
    }
    return out;
  }

  /** Ends the threads (after {@link close}). */
  terminate(): void {
    for (const t of this.#threads) t.worker.terminate();
  }
}
