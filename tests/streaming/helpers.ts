/**
 * Streaming clients for tests: a real WebSocket (Deno's) and an SSE reader
 * (fetch and the response body), each collecting what arrives, with a way
 * to wait for the next matching message or to prove that none came.
 *
 * "None came" is never concluded from a quiet moment. The hub sends a
 * connection its frames in the order their events were committed (and a
 * socket, or an SSE body, keeps that order), so a test does the thing that
 * must not show, then a later thing that must show on the same connection
 * (the marker), and checks that nothing unwanted arrived before the
 * marker: if it had been sent at all, it would be there.
 */
import type { TestInstance } from "../harness.ts";
import { publishStreamEvent } from "../../actors/streaming/bus.ts";
import { newId } from "../../db/ids.ts";
import { statuses } from "../../db/schema/mod.ts";

/** A WebSocket frame as Mastodon sends it. */
export interface Frame {
  stream?: string[];
  event?: string;
  payload?: string;
  error?: string;
  status?: number;
}

/**
 * A marker: the frame (or SSE event) of a later action, named by its event,
 * the id its payload names (a status, a notification…; a delete's payload
 * is the id itself) unless any of that event will do, and, for a
 * WebSocket, optionally its stream.
 */
export interface Marker {
  event: string;
  id?: string;
  stream?: string;
}

/** Whether an event with this name and payload is (one of the events of) the marker. */
function ofMarker(marker: Marker, event: string | undefined, payload: string | undefined) {
  return event === marker.event && (marker.id == null || payloadId(payload) === marker.id);
}

/** The marker must differ from what it proves absent, or the proof is empty. */
function checkMarker(unwanted: string, marker: Marker): void {
  if (marker.id == null && marker.event === unwanted) {
    throw new Error(`a ${unwanted} marker needs an id to tell it from an unwanted ${unwanted}`);
  }
}

/** The id a payload names: its JSON's `id`, or the payload itself (a delete). */
function payloadId(payload: string | undefined): string | undefined {
  if (payload == null) return undefined;
  try {
    const parsed = JSON.parse(payload);
    return typeof parsed === "object" && parsed != null ? String(parsed.id) : String(parsed);
  } catch {
    return payload;
  }
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
    const index = await this.#find(match, timeoutMs, what);
    return this.items.splice(index, 1)[0];
  }

  /**
   * The first item matching `marker` (taken out), waiting up to `timeoutMs`;
   * fails if an item that `unwanted` matches arrived before it.
   */
  async takeAfterNone(
    marker: (item: T) => boolean,
    unwanted: (item: T) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<T> {
    const index = await this.#find(marker, timeoutMs, what);
    const found = this.items.slice(0, index).find(unwanted);
    if (found) throw new Error(`unexpected before ${what}: ${JSON.stringify(found)}`);
    return this.items.splice(index, 1)[0];
  }

  async #find(match: (item: T) => boolean, timeoutMs: number, what: string): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (true) {
      const index = this.items.findIndex(match);
      if (index >= 0) return index;
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

  /**
   * Proves that nothing done before the action behind `marker` sent this
   * socket a frame with event `unwanted`: waits for the marker's frame
   * (returned, taken out) and fails if such a frame (other than the
   * marker's own, on another stream) arrived before it.
   */
  async nothingBefore(unwanted: string, marker: Marker, timeoutMs = 10_000): Promise<Frame> {
    checkMarker(unwanted, marker);
    return await this.inbox.takeAfterNone(
      (f) =>
        ofMarker(marker, f.event, f.payload) &&
        (marker.stream == null || f.stream?.[0] === marker.stream),
      (f) => f.event === unwanted && !ofMarker(marker, f.event, f.payload),
      timeoutMs,
      `${marker.event} of ${marker.id ?? "anything"} on ${marker.stream ?? "any stream"}`,
    );
  }

  /**
   * Resolves once the server has handled every message sent so far on this
   * socket, and fails if one of them was answered with an error frame. It
   * sends a subscription the server must refuse ("Unknown stream type"):
   * client messages are handled one after another, so its refusal comes
   * after whatever the earlier ones caused. (Tests that check that very
   * refusal do not call it.)
   */
  async sync(timeoutMs = 10_000): Promise<void> {
    this.send({ type: "subscribe", stream: "rookery-test-sync" });
    await this.inbox.takeAfterNone(
      (f) => f.error === "Unknown stream type",
      (f) => f.error != null,
      timeoutMs,
      "the refusal of the sync message",
    );
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

  /**
   * Proves that nothing done before the action behind `marker` sent this
   * stream an `unwanted` event: waits for the marker's event (returned,
   * taken out) and fails if such an event arrived before it.
   */
  async nothingBefore(unwanted: string, marker: Marker, timeoutMs = 10_000): Promise<SseEvent> {
    checkMarker(unwanted, marker);
    const isMarker = (e: SseEvent) => ofMarker(marker, e.event, e.data);
    return await this.inbox.takeAfterNone(
      isMarker,
      (e) => e.event === unwanted && !isMarker(e),
      timeoutMs,
      `SSE ${marker.event} of ${marker.id ?? "anything"}`,
    );
  }

  async close(): Promise<void> {
    this.#abort.abort();
    await this.ended;
  }
}

/**
 * A public status of a remote account, stored and announced to the streams
 * as an inbox delivery would (without a peer to send it); returns its id.
 * `actorUri` names the author (https://remote.example/users/rita).
 */
export async function remoteStatus(
  instance: TestInstance,
  author: { accountId: string; actorUri: string },
  text: string,
): Promise<string> {
  const id = newId();
  await instance.rookery.ctx.database.db.transaction(async (tx) => {
    await tx.insert(statuses).values({
      id,
      uri: `${author.actorUri}/statuses/${id}`,
      accountId: author.accountId,
      local: false,
      visibility: "public",
      content: `<p>${text}</p>`,
    });
    await publishStreamEvent(tx, { event: "update", statusId: id, home: [], lists: [] });
  });
  return id;
}
