/**
 * The WebSockets of the streaming scenario (streaming.ts) and what arrived on
 * them, read with as little work per frame as possible: a timestamp, a
 * substring test and one regular expression for the status id; socket 0's
 * frames are parsed in full to check that shortcut.
 */

/** A status id at the start of an `update` frame's payload (a Status begins with its id). */
export const FIRST_ID = /\\"id\\":\\"(\d+)\\"/;

/** The sockets and what arrived on them: status id → arrival time per socket (NaN: none yet). */
export class Sockets {
  readonly sockets: WebSocket[] = [];
  readonly arrivals = new Map<string, Float64Array>();
  /** Status id → sockets that received it. */
  private readonly counts = new Map<string, number>();
  duplicates = 0;
  /** Frames of socket 0 where the shortcut and a full parse disagree. */
  misread = 0;
  /** Error frames (`{"error": …}`, a refused subscription), by text. */
  readonly refusals = new Map<string, number>();
  /** Sockets closed while we still wanted them, by close code and reason. */
  readonly closes = new Map<string, number>();
  #closing = false;

  /** `onArrival`: called with a status id and how many sockets now have it. */
  constructor(
    readonly size: number,
    private readonly onArrival?: (id: string, count: number) => void,
  ) {}

  /** Opens socket `index` with `token`; resolves once open, rejects if refused. */
  open(url: string, index: number, token: string): Promise<void> {
    const ws = new WebSocket(
      `${url.replace(/^http/, "ws")}/api/v1/streaming?stream=user&access_token=${
        encodeURIComponent(token)
      }`,
    );
    this.sockets[index] = ws;
    ws.onmessage = (e) => {
      const at = performance.now();
      const data = e.data;
      if (typeof data !== "string") return;
      if (data.startsWith('{"error"')) {
        this.refusals.set(data, (this.refusals.get(data) ?? 0) + 1);
        return;
      }
      if (!data.includes('"event":"update"')) return;
      const id = FIRST_ID.exec(data)?.[1];
      if (index === 0) this.check(data, id);
      if (id) this.arrived(id, index, at);
    };
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no answer to the upgrade in 30 s")), 30_000);
      ws.onopen = () => {
        clearTimeout(timer);
        resolve();
      };
      ws.onclose = (e) => {
        clearTimeout(timer);
        reject(new Error(`socket ${index} closed (${e.code} ${e.reason || "no reason"})`));
      };
      ws.onerror = (e) => {
        clearTimeout(timer);
        reject(new Error(`socket ${index}: ${(e as ErrorEvent).message ?? "error"}`));
      };
    }).then(() => {
      ws.onerror = null;
      ws.onclose = (e) => {
        if (this.#closing) return;
        const key = `${e.code} ${e.reason || "(no reason)"}`;
        this.closes.set(key, (this.closes.get(key) ?? 0) + 1);
      };
    });
  }

  private arrived(id: string, index: number, at: number) {
    let times = this.arrivals.get(id);
    if (!times) {
      times = new Float64Array(this.size).fill(NaN);
      this.arrivals.set(id, times);
    }
    if (Number.isNaN(times[index])) {
      times[index] = at;
      const count = (this.counts.get(id) ?? 0) + 1;
      this.counts.set(id, count);
      this.onArrival?.(id, count);
    } else {
      this.duplicates++;
    }
  }

  private check(data: string, id: string | undefined) {
    try {
      const frame = JSON.parse(data);
      const ok = frame.event === "update" && Array.isArray(frame.stream) &&
        frame.stream[0] === "user" && JSON.parse(frame.payload).id === id;
      if (!ok) this.misread++;
    } catch {
      this.misread++;
    }
  }

  /** How many sockets have received `id`. */
  received(id: string): number {
    return this.counts.get(id) ?? 0;
  }

  /** Sockets that have received no update at all. */
  silent(): number {
    let n = 0;
    for (let s = 0; s < this.size; s++) {
      let any = false;
      for (const times of this.arrivals.values()) {
        if (!Number.isNaN(times[s])) {
          any = true;
          break;
        }
      }
      if (!any) n++;
    }
    return n;
  }

  /** How many sockets are in each readyState. */
  readyStates(): [number, number][] {
    const states = new Map<number, number>();
    for (const ws of this.sockets) states.set(ws.readyState, (states.get(ws.readyState) ?? 0) + 1);
    return [...states];
  }

  closeAll() {
    this.#closing = true;
    for (const ws of this.sockets) {
      if (ws && ws.readyState === WebSocket.OPEN) ws.close();
    }
  }
}

/** Opens `tokens.length` sockets, `parallel` handshakes at a time. */
export async function openAll(sockets: Sockets, url: string, tokens: string[], parallel = 50) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(parallel, tokens.length) }, async () => {
    while (next < tokens.length) {
      const i = next++;
      await sockets.open(url, i, tokens[i]);
    }
  }));
}
