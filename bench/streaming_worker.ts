/**
 * A thread of the streaming bench client (streaming_pool.ts): holds its
 * share of the sockets (streaming_sockets.ts) and tells the pool, every
 * {@link FLUSH_MS}, how many of them have each status; arrival times stay
 * here, in this thread's clock, until the pool asks for them.
 *
 * Messages in: `{type: "open", url, tokens}`, `{type: "results"}`,
 * `{type: "close"}`. Out: `opened` or `failed`, `counts`, `results`,
 * `closed`.
 */
/// <reference lib="deno.worker" />
import { openAll, Sockets } from "./streaming_sockets.ts";

/** How often changed counts are posted to the pool (they only tell it when to stop waiting). */
const FLUSH_MS = 10;

/** This thread's sockets and the counts not yet posted. */
class Share {
  sockets: Sockets | null = null;
  readonly #changed = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | null = null;

  flush() {
    this.#timer = null;
    if (this.#changed.size === 0) return;
    self.postMessage({ type: "counts", counts: [...this.#changed] });
    this.#changed.clear();
  }

  arrived(id: string, count: number) {
    this.#changed.set(id, count);
    this.#timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  async open(url: string, tokens: string[]) {
    this.sockets = new Sockets(tokens.length, (id, count) => this.arrived(id, count));
    try {
      await openAll(this.sockets, url, tokens);
      self.postMessage({ type: "opened" });
    } catch (error) {
      self.postMessage({ type: "failed", message: String(error) });
    }
  }

  results() {
    const s = this.sockets!;
    self.postMessage({
      type: "results",
      timeOrigin: performance.timeOrigin,
      arrivals: [...s.arrivals],
      duplicates: s.duplicates,
      misread: s.misread,
      refusals: [...s.refusals],
      closes: [...s.closes],
      silent: s.silent(),
      readyStates: s.readyStates(),
    });
  }

  close() {
    this.sockets?.closeAll();
    this.flush();
    self.postMessage({ type: "closed" });
  }
}

const share = new Share();
self.onmessage = (e: MessageEvent) => {
  const message = e.data;
  if (message.type === "open") share.open(message.url, message.tokens);
  else if (message.type === "results") share.results();
  else if (message.type === "close") share.close();
};
