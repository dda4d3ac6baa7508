/**
 * The fuzz loop: input `i` of a run picks its route round-robin and its body
 * from its own PRNG (seed, i), so `FUZZ_REPLAY=i` sends exactly the same
 * request again. A 5xx, a failed connection or an answer slower than the
 * limit is a failure; the loop goes on and reports them all at the end.
 */
import { generateBody } from "./generators.ts";
import { Rng } from "./prng.ts";
import { API_ROUTES, fillPath, type FuzzRoute, INBOX_ROUTES } from "./routes.ts";
import { type FuzzTarget, refreshObjects } from "./target.ts";

/** One way to send: a route, and for inboxes whether the request is signed. */
export interface Variant {
  route: FuzzRoute;
  signed: boolean;
  /** `POST /api/v1/statuses`, `POST /inbox (signed)`. */
  label: string;
}

/** Every route, the inboxes twice (unsigned and signed). */
export function variants(filter?: RegExp): Variant[] {
  const all: Variant[] = [
    ...API_ROUTES.map((route) => ({
      route,
      signed: false,
      label: `${route.method} ${route.path}`,
    })),
    ...INBOX_ROUTES.flatMap((route) =>
      [false, true].map((signed) => ({
        route,
        signed,
        label: `${route.method} ${route.path} (${signed ? "signed" : "unsigned"})`,
      }))
    ),
  ];
  return filter ? all.filter((v) => filter.test(v.label)) : all;
}

/** A request that failed, with what is needed to replay it. */
export interface Failure {
  seed: number;
  index: number;
  label: string;
  url: string;
  shape: string;
  contentType: string | null;
  bodyLength: number;
  /** The first 300 bytes of the body, as JSON-escaped text. */
  bodyHead: string;
  /** `500`, `slow 1234 ms (status 200)`, `connection: …`. */
  problem: string;
  /** The first bytes of the answer, when there was one. */
  answer?: string;
}

export interface RunOptions {
  seed: number;
  /** Inputs to send (indices 0…count-1), unless `indices` is given. */
  count: number;
  /** Only these indices (replay). */
  indices?: number[];
  /** Slower than this is a failure (default 1,000 ms). */
  slowMs?: number;
  /** Requests in flight at once (default 1). */
  concurrency?: number;
  /** Only the variants whose label matches. */
  filter?: RegExp;
  /** Make the fuzz user's objects again every this many inputs (default 500). */
  refreshEvery?: number;
  /** Called for each failure as it happens. */
  onFailure?: (failure: Failure) => void;
  /** Called every 1,000 inputs. */
  onProgress?: (done: number) => void;
  /** Print each request and answer (replay). */
  verbose?: boolean;
  /** Stops sending when aborted (the inputs in flight finish); the result covers what was sent. */
  signal?: AbortSignal;
}

export interface RunResult {
  sent: number;
  /** label → status (or `error`) → count. */
  histogram: Map<string, Map<string, number>>;
  failures: Failure[];
}

function describeBody(body: Uint8Array | null): string {
  if (!body) return "(no body)";
  const head = new TextDecoder("utf-8", { fatal: false }).decode(body.subarray(0, 300));
  return JSON.stringify(head) + (body.length > 300 ? ` … (${body.length} bytes)` : "");
}

/** What a run collects while it sends. */
interface RunState {
  options: RunOptions;
  histogram: Map<string, Map<string, number>>;
  failures: Failure[];
  /** Index → label of the inputs whose requests are in flight. */
  inFlight: Map<number, string>;
}

function addFailure(state: RunState, failure: Failure): void {
  state.failures.push(failure);
  state.options.onFailure?.(failure);
}

/**
 * A crash of the server (an unhandled rejection or error in the process
 * that runs it) is a failure of the inputs that were in flight.
 */
function crashHandler(state: RunState): (event: Event) => void {
  return (event) => {
    event.preventDefault();
    const reason = (event as PromiseRejectionEvent).reason ?? (event as ErrorEvent).error;
    for (const [index, label] of state.inFlight) {
      addFailure(state, {
        seed: state.options.seed,
        index,
        label,
        url: "",
        shape: "",
        contentType: null,
        bodyLength: 0,
        bodyHead: "",
        problem: `crash: ${reason?.stack ?? reason}`,
      });
    }
  };
}

/** Input `index`'s request: its route's path and body from the input's own PRNG. */
async function inputRequest(target: FuzzTarget, variant: Variant, seed: number, index: number) {
  const rng = Rng.forInput(seed, index);
  const gen = target.gen;
  const path = fillPath(variant.route.path, gen.ids, (xs) => rng.pick(xs), (p) => rng.chance(p));
  const body = generateBody(rng, gen, variant.route);
  const url = `${target.instance.origin}${path}`;
  const headers = new Headers();
  if (body.contentType !== null) headers.set("content-type", body.contentType);
  if (variant.route.kind === "api" && !variant.route.anonymous) {
    // Mostly the real token; sometimes a junk one, to fuzz the refusal path too.
    headers.set("authorization", rng.chance(0.95) ? `Bearer ${target.user.token}` : "Bearer x");
  }
  let request = new Request(url, { method: variant.route.method, headers, body: body.body });
  if (variant.signed) request = await target.signer.sign(request, body.body, rng.chance(0.5));
  return { request, url, body };
}

/** Sends a request: its status (or `error`), what is wrong with the answer, and its head. */
async function send(request: Request, slowMs: number, verbose: boolean | undefined) {
  const started = performance.now();
  try {
    const res = await fetch(request, { signal: AbortSignal.timeout(60_000) });
    const text = await res.text();
    const ms = performance.now() - started;
    let problem: string | null = null;
    if (res.status >= 500) problem = `status ${res.status}`;
    else if (ms > slowMs) problem = `slow: ${Math.round(ms)} ms (status ${res.status})`;
    const answer = problem || verbose ? text.slice(0, 300) : undefined;
    return { key: String(res.status), problem, answer };
  } catch (error) {
    const problem = `connection: ${error instanceof Error ? error.message : error}`;
    return { key: "error", problem, answer: undefined };
  }
}

/** Sends input `index` and records its answer. */
async function sendInput(
  target: FuzzTarget,
  state: RunState,
  variant: Variant,
  index: number,
): Promise<void> {
  const { options } = state;
  const { request, url, body } = await inputRequest(target, variant, options.seed, index);
  state.inFlight.set(index, variant.label);
  let sent;
  try {
    sent = await send(request, options.slowMs ?? 1000, options.verbose);
  } finally {
    state.inFlight.delete(index);
  }
  const { key, problem, answer } = sent;
  const counts = state.histogram.get(variant.label) ?? new Map<string, number>();
  counts.set(key, (counts.get(key) ?? 0) + 1);
  state.histogram.set(variant.label, counts);
  if (options.verbose) {
    console.log(
      `#${index} ${variant.route.method} ${url} [${body.shape}] ${body.contentType}\n` +
        `  body: ${describeBody(body.body)}\n  → ${key}: ${answer}`,
    );
  }
  if (!problem) return;
  addFailure(state, {
    seed: options.seed,
    index,
    label: variant.label,
    url,
    shape: body.shape,
    contentType: body.contentType,
    bodyLength: body.body?.length ?? 0,
    bodyHead: describeBody(body.body),
    problem,
    answer,
  });
}

/** Runs the fuzzer against `target`. */
export async function runFuzz(target: FuzzTarget, options: RunOptions): Promise<RunResult> {
  const table = variants(options.filter);
  if (!table.length) throw new Error("no route matches the filter");
  const refreshEvery = options.refreshEvery ?? 500;
  const state: RunState = { options, histogram: new Map(), failures: [], inFlight: new Map() };
  const indices = options.indices ??
    Array.from({ length: options.count }, (_, i) => i);
  const onCrash = crashHandler(state);
  globalThis.addEventListener("unhandledrejection", onCrash);
  globalThis.addEventListener("error", onCrash);
  let next = 0;
  let done = 0;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  try {
    while (next < indices.length) {
      // Objects are made again between batches, never while requests fly.
      const batchEnd = Math.min(indices.length, next + refreshEvery);
      const workers = Array.from({ length: concurrency }, async () => {
        while (next < batchEnd && !options.signal?.aborted) {
          const index = indices[next++];
          await sendInput(target, state, table[index % table.length], index);
          if (++done % 1000 === 0) options.onProgress?.(done);
        }
      });
      await Promise.all(workers);
      if (options.signal?.aborted) break;
      if (next < indices.length) await refreshObjects(target);
    }
  } finally {
    globalThis.removeEventListener("unhandledrejection", onCrash);
    globalThis.removeEventListener("error", onCrash);
  }
  return { sent: done, histogram: state.histogram, failures: state.failures };
}

/** A failure as printed: everything needed to replay it. */
export function formatFailure(f: Failure): string {
  return [
    `FAIL ${f.problem}`,
    `  route: ${f.label}   url: ${f.url}`,
    `  seed: ${f.seed}  index: ${f.index}  (replay: FUZZ_SEED=${f.seed} FUZZ_REPLAY=${f.index} deno task fuzz)`,
    `  shape: ${f.shape}  content-type: ${f.contentType}  body: ${f.bodyLength} bytes`,
    `  body head: ${f.bodyHead}`,
    ...(f.answer !== undefined ? [`  answer: ${JSON.stringify(f.answer)}`] : []),
  ].join("\n");
}

/** The per-route table: inputs sent and the status histogram, with a total. */
export function formatHistogram(result: RunResult, title: string): string {
  const lines = [`\n${title}\n`, "| route | inputs | statuses |", "|---|---:|---|"];
  const total = new Map<string, number>();
  for (const [label, counts] of [...result.histogram].sort(([a], [b]) => a.localeCompare(b))) {
    const n = [...counts.values()].reduce((a, b) => a + b, 0);
    const statuses = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([s, c]) => {
      total.set(s, (total.get(s) ?? 0) + c);
      return `${s}×${c}`;
    }).join(" ");
    lines.push(`| ${label} | ${n} | ${statuses} |`);
  }
  const totals = [...total].sort(([a], [b]) => a.localeCompare(b)).map(([s, c]) => `${s}×${c}`);
  lines.push(`| **total** | ${result.sent} | ${totals.join(" ")} |`);
  return lines.join("\n");
}
