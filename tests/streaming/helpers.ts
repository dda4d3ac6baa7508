/**
 * Streaming clients for tests: a real WebSocket (Deno's) and an SSE reader
 * (fetch and the response body), each collecting what arrives, with a way
 * to wait for the next matching message or to check that none came.
 */
import type { TestInstance } from "../harness.ts";

/** A WebSocket frame as Mastodon sends it. */
export interface Frame {
  stream?: string[];
  event?: string;
  payload?: string;
  error?: string;
  status?: number;
}

class Inbox<T> {
  readonly items: T[] = [];
  #waiters: (() => void)[] = [];
  push(item: T): void {
    this.items.push(item);
    for (const w of this.#waiters.splice(0)) w();
  }
  /** The first item (taken out) matching `match`, waiting up to `timeoutMs`. */
  async take(match: (item: T) => boolean, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const index = this.items.findIndex(match);
      if (index >= 0) return this.items.splice(index, 1)[0];
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.items)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

export class WsClient {
  readonly inbox = new Inbox<Frame>();
  readonly closed: Promise<CloseEvent>;
  private constructor(readonly socket: WebSocket) {
    socket.onmessage = (e) => this.inbox.push(JSON.parse(e.data));
    this.closed = new Promise((resolve) => socket.addEventListener("close", resolve));
  }

  /** Opens `path` (relative to the instance) and resolves once open; rejects when refused. */
  static async open(
    instance: TestInstance,
    path: string,
    protocols?: string[],
    headers?: Record<string, string>,
  ): Promise<WsClient> {
    const url = new URL(path, instance.origin.replace(/^http/, "ws"));
    // Deno's client may send headers (a browser cannot: hence the protocol).
    const socket = headers
      ? new WebSocket(url, { protocols, headers })
      : new WebSocket(url, protocols);
    const client = new WsClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve();
      socket.onerror = (e) => reject(new Error(`WebSocket refused: ${(e as ErrorEvent).message}`));
    });
    return client;
  }

  /** Forgets what arrived so far. */
  clear(): void {
    this.inbox.items.length = 0;
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  /** The next frame with this event (and stream name, when given). */
  async next(event: string, stream?: string, timeoutMs = 10_000): Promise<Frame> {
    return await this.inbox.take(
      (f) => f.event === event && (stream == null || f.stream?.[0] === stream),
      timeoutMs,
      `${event} on ${stream ?? "any stream"}`,
    );
  }

  async nextError(timeoutMs = 10_000): Promise<Frame> {
    return await this.inbox.take((f) => f.error != null, timeoutMs, "an error frame");
  }

  /** Fails if a frame with this event arrives within `ms`. */
  async nothing(event: string, ms = 700): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    const found = this.inbox.items.find((f) => f.event === event);
    if (found) throw new Error(`unexpected ${event}: ${JSON.stringify(found)}`);
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.close();
    await this.closed;
  }
}

/** An SSE event. */
export interface SseEvent {
  event: string;
  data: string;
}

export class SseClient {
  readonly inbox = new Inbox<SseEvent>();
  /** Comments received (`:)`, `:thump`). */
  readonly comments: string[] = [];
  readonly ended: Promise<void>;
  readonly #abort: AbortController;

  private constructor(readonly response: Response, abort: AbortController) {
    this.#abort = abort;
    this.ended = this.#read();
  }

  /** Opens an SSE path; returns the client, or the refusal response when not 200. */
  static async open(
    instance: TestInstance,
    path: string,
    token?: string,
  ): Promise<SseClient> {
    const abort = new AbortController();
    const res = await fetch(new URL(path, instance.origin), {
      headers: token ? { Authorization: `Bearer ${token}` } : {},
      signal: abort.signal,
    });
    if (res.status !== 200) {
      throw new Error(`SSE ${path} answered ${res.status}: ${await res.text()}`);
    }
    const client = new SseClient(res, abort);
    return client;
  }

  async #read(): Promise<void> {
    const reader = this.response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let event = "message";
    let data: string[] = [];
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let at;
        while ((at = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, at);
          buffer = buffer.slice(at + 1);
          if (line === "") {
            if (data.length) this.inbox.push({ event, data: data.join("\n") });
            event = "message";
            data = [];
          } else if (line.startsWith(":")) this.comments.push(line);
          else if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("data: ")) data.push(line.slice(6));
        }
      }
    } catch { /* aborted */ }
  }

  async next(event: string, timeoutMs = 10_000): Promise<SseEvent> {
    return await this.inbox.take((e) => e.event === event, timeoutMs, `SSE ${event}`);
  }

  async nothing(event: string, ms = 700): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    const found = this.inbox.items.find((e) => e.event === event);
    if (found) throw new Error(`unexpected ${event}: ${JSON.stringify(found)}`);
  }

  async close(): Promise<void> {
    this.#abort.abort();
    await this.ended;
  }
}
