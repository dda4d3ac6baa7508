/**
 * Memory given back when the process is idle. Neither V8 nor glibc returns
 * much on its own: V8 keeps the young generation grown by the last burst of
 * requests and the old generation's garbage until the next allocation
 * forces a collection, which an idle server never makes; glibc keeps what
 * was freed in its arenas (with PGlite, the WebAssembly compilers' threads
 * leave 40–80 MiB there). So once the process has been quiet for a tick
 * (under 2.5% of a core over `TICK_MS`) and has grown by `REGROWTH` bytes
 * since the last time, it runs one full V8 collection, then asks glibc to
 * hand its free pages back (`malloc_trim(0)`). Measured in
 * docs/benchmarks.md ("Idle RSS: memory given back, and a bundled build").
 *
 * Under load no tick is quiet, so nothing runs; a server at a trickle runs
 * it at most once per `REGROWTH` of new memory, not once per lull. The
 * collection takes 80–400 ms of one core (more with PGlite); a request that
 * arrives meanwhile waits that long, once.
 *
 * Process-wide (V8's heap and glibc's arenas are the process's): main.ts
 * starts one; instances in tests do not.
 */
import process from "node:process";
import v8 from "node:v8";
import vm from "node:vm";

/** How often the process's CPU time is looked at. */
const TICK_MS = 2000;
/** CPU time in a tick (µs, user + system, all threads) below which the process is quiet. */
const QUIET_CPU_US = TICK_MS * 1000 * 0.025;
/** Growth of the RSS since the last release that makes another worth its cost. */
const REGROWTH = 8 * 1024 * 1024;

type Release = () => void;

/**
 * V8's `gc()`, without `--expose-gc` on the command line: the flag set at run
 * time installs it in contexts made afterwards (null where that fails).
 */
function fullCollection(): Release | null {
  try {
    v8.setFlagsFromString("--expose-gc");
    return vm.runInNewContext("gc") as Release;
  } catch {
    return null;
  }
}

/** glibc's `malloc_trim(0)` through FFI (null without glibc or the FFI permission). */
function mallocTrim(): Release | null {
  try {
    const libc = Deno.dlopen("libc.so.6", {
      malloc_trim: { parameters: ["usize"], result: "i32" },
    });
    return () => void libc.symbols.malloc_trim(0n);
  } catch {
    return null;
  }
}

/** The process's CPU time so far, µs (user + system, all its threads). */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** What a release does and what the tick reads (tests give their own). */
export interface IdleProbes {
  /** Run in order on a release. */
  steps: { name: string; run: Release }[];
  cpuMicros: () => number;
  rss: () => number;
}

/** The real ones: V8's full collection and glibc's trim where available, /proc's figures. */
export function processProbes(): IdleProbes {
  const steps = [
    { name: "gc", run: fullCollection() },
    { name: "malloc_trim", run: mallocTrim() },
  ].filter((s): s is { name: string; run: Release } => s.run !== null);
  return { steps, cpuMicros, rss: () => Deno.memoryUsage().rss };
}

/** Started by main.ts for the process's lifetime; `close` stops the tick. */
export class IdleMemoryRelease {
  readonly #probes: IdleProbes;
  #timer: ReturnType<typeof setInterval> | null = null;
  #cpu: number;
  /** RSS right after the last release (0: none yet, so the first quiet tick after start runs one). */
  #floor = 0;

  constructor(probes: IdleProbes = processProbes()) {
    this.#probes = probes;
    this.#cpu = probes.cpuMicros();
  }

  /** Ticks every `TICK_MS` without keeping the process alive. */
  start(): this {
    this.#timer = setInterval(() => this.tick(), TICK_MS);
    Deno.unrefTimer(this.#timer as unknown as number);
    return this;
  }

  /** One look at the last tick's CPU time and the RSS; true when it released. */
  tick(): boolean {
    const cpu = this.#probes.cpuMicros();
    const quiet = cpu - this.#cpu < QUIET_CPU_US;
    this.#cpu = cpu;
    if (!quiet || this.#probes.rss() < this.#floor + REGROWTH) return false;
    for (const step of this.#probes.steps) step.run();
    // The release's own CPU time is not activity.
    this.#cpu = this.#probes.cpuMicros();
    this.#floor = this.#probes.rss();
    return true;
  }

  close() {
    if (this.#timer !== null) clearInterval(this.#timer);
  }
}
