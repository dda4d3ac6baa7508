/**
 * The streaming scenario's sockets held by a native process
 * (streaming_client.c, built here with the machine's C compiler): the
 * default bench client (`BENCH_STREAM_CLIENT=native`). It offers the
 * surface of the thread pool (streaming_pool.ts) and is driven by lines
 * on its stdin and stdout; its CPU time is counted with the bench's.
 */
import type { PoolResults } from "./streaming_pool.ts";
import { FIRST_ID } from "./streaming_sockets.ts";

const SOURCE = new URL("./streaming_client.c", import.meta.url).pathname;

/** Builds the client (once per bench run); an error says how to do without it. */
async function build(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "rookery-stream-client-" });
  const binary = `${dir}/client`;
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(Deno.env.get("CC") ?? "cc", {
      args: ["-O2", "-o", binary, SOURCE],
      stdout: "null",
      stderr: "piped",
    }).output();
  } catch (error) {
    throw new Error(
      `no C compiler to build the native streaming client (${error}); ` +
        "BENCH_STREAM_CLIENT=websocket uses Deno's WebSocket instead",
    );
  }
  if (!out.success) {
    throw new Error(`building ${SOURCE} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return binary;
}

/**
 * The lines a process writes, read as they come: side lines (`c` counts,
 * `f` frames) go to `onSide` at once, the others wait for {@link next}.
 */
class Lines {
  readonly #answers: string[] = [];
  #waiting: ((line: string | null) => void) | null = null;
  #ended = false;

  constructor(stdout: ReadableStream<Uint8Array>, onSide: (line: string) => void) {
    (async () => {
      let buffered = "";
      for await (const chunk of stdout.pipeThrough(new TextDecoderStream())) {
        buffered += chunk;
        let at;
        while ((at = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, at);
          buffered = buffered.slice(at + 1);
          if (line.startsWith("c ") || line.startsWith("f ")) onSide(line);
          else this.#answer(line);
        }
      }
    })().catch(() => {}).finally(() => {
      this.#ended = true;
      this.#answer(null);
    });
  }

  #answer(line: string | null): void {
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = null;
      waiting(line);
    } else if (line !== null) this.#answers.push(line);
  }

  /** The next answer line (null once the process ended). */
  next(): Promise<string | null> {
    if (this.#answers.length > 0) return Promise.resolve(this.#answers.shift()!);
    if (this.#ended) return Promise.resolve(null);
    return new Promise((resolve) => this.#waiting = resolve);
  }
}

export class NativePool {
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: Lines;
  readonly #counts = new Map<string, number>();
  #misread = 0;
  /** Replies are read one command at a time. */
  #turn: Promise<unknown> = Promise.resolve();

  private constructor(child: Deno.ChildProcess, readonly size: number) {
    this.#child = child;
    this.#stdin = child.stdin.getWriter();
    this.#lines = new Lines(child.stdout, (line) => this.#side(line));
  }

  /** The client process's id (its CPU time is the bench client's too). */
  get pid(): number {
    return this.#child.pid;
  }

  /** Opens a socket per token (`user` stream) in a new client process. */
  static async open(url: string, tokens: string[]): Promise<NativePool> {
    const binary = await build();
    const child = new Deno.Command(binary, {
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    // A running program's file may go: nothing is left behind in the temporary directory.
    await Deno.remove(binary.replace(/\/client$/, ""), { recursive: true });
    const pool = new NativePool(child, tokens.length);
    const u = new URL(url);
    const paths = tokens.map((t) =>
      `/api/v1/streaming?stream=user&access_token=${encodeURIComponent(t)}\n`
    );
    const answer = await pool.#ask(
      `open ${u.hostname} ${u.port || "80"} ${tokens.length}\n${paths.join("")}`,
    );
    if (answer !== "opened") {
      pool.terminate();
      throw new Error(`the native streaming client: ${answer ?? "ended"}`);
    }
    return pool;
  }

  #side(line: string): void {
    if (line.startsWith("c ")) {
      const [, id, n] = line.split(" ");
      this.#counts.set(id, Number(n));
      return;
    }
    // Socket 0's update frame, parsed in full as the Deno clients check it.
    const data = line.slice(2);
    try {
      const frame = JSON.parse(data);
      const ok = frame.event === "update" && frame.stream?.[0] === "user" &&
        JSON.parse(frame.payload).id === FIRST_ID.exec(data)?.[1];
      if (!ok) this.#misread++;
    } catch {
      this.#misread++;
    }
  }

  /** Sends a command and reads the first line of its answer. */
  #ask(command: string): Promise<string | null> {
    const answer = this.#turn.then(async () => {
      await this.#stdin.write(
        new TextEncoder().encode(command.endsWith("\n") ? command : `${command}\n`),
      );
      return await this.#lines.next();
    });
    this.#turn = answer.catch(() => {});
    return answer;
  }

  received(id: string): number {
    return this.#counts.get(id) ?? 0;
  }

  async close(): Promise<void> {
    await this.#ask("close");
  }

  /** Every arrival, in this thread's clock (the client's is offset by a round trip's midpoint). */
  async results(): Promise<PoolResults> {
    const sent = performance.now();
    const clock = await this.#ask("clock");
    const shift = (sent + performance.now()) / 2 - Number(clock?.split(" ")[1]);
    const out: PoolResults = {
      arrivals: new Map(),
      duplicates: 0,
      misread: this.#misread,
      refusals: new Map(),
      closes: new Map(),
      silent: 0,
      readyStates: new Map(),
    };
    let line = await this.#ask("results");
    while (line !== null && line !== "e") {
      const [kind, ...rest] = line.split(" ");
      if (kind === "a") {
        const times = new Float64Array(this.size);
        for (let i = 0; i < this.size; i++) {
          times[i] = rest[i + 1] === "-" ? NaN : Number(rest[i + 1]) + shift;
        }
        out.arrivals.set(rest[0], times);
      } else if (kind === "d") out.duplicates = Number(rest[0]);
      else if (kind === "s") out.silent = Number(rest[0]);
      else if (kind === "o") {
        out.readyStates.set(1, Number(rest[0]));
        out.readyStates.set(3, this.size - Number(rest[0]));
      } else if (kind === "x") out.closes.set(rest.slice(1).join(" "), Number(rest[0]));
      line = await this.#lines.next();
    }
    return out;
  }

  /** Ends the client process. */
  terminate(): void {
    try {
      this.#child.kill("SIGKILL");
    } catch { /* already ended */ }
  }
}
