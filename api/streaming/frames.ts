/**
 * What the hub hands to connections: an event with its payload, rendered
 * once and shared by every connection that receives it, and the interface
 * both transports (websocket.ts, sse.ts) implement.
 *
 * A frame is the text a transport writes: `{"stream":[…],"event":…,
 * "payload":"…"}` for WebSocket, `event: …\ndata: …\n\n` for SSE. The
 * payload is the entity as JSON text (an id for delete events, none for
 * filters_changed). Each distinct frame is built once per event, however
 * many connections send it: a post to a thousand followers serializes its
 * Status once and writes the same string a thousand times.
 */
import type { Subscription } from "./streams.ts";

/** One rendered event, as many connections receive it. */
export class Payload {
  /** Frames already built, by transport and stream. */
  readonly #frames = new Map<string, string>();
  #sseBytes: Uint8Array | null = null;

  constructor(readonly event: string, readonly data: string | undefined) {}

  /** The WebSocket frame for a subscription. */
  websocketFrame(sub: Subscription): string {
    let frame = this.#frames.get(sub.streamJson);
    if (frame === undefined) {
      const payload = this.data === undefined ? "" : `,"payload":${JSON.stringify(this.data)}`;
      frame = `{"stream":${sub.streamJson},"event":${JSON.stringify(this.event)}${payload}}`;
      this.#frames.set(sub.streamJson, frame);
    }
    return frame;
  }

  /**
   * The SSE frame (the same for every stream). Mastodon writes `data:
   * undefined` for an event without payload; an EventSource drops an event
   * with no data line at all.
   */
  sseFrame(): string {
    let frame = this.#frames.get("");
    if (frame === undefined) {
      frame = `event: ${this.event}\ndata: ${this.data ?? "undefined"}\n\n`;
      this.#frames.set("", frame);
    }
    return frame;
  }

  /** The SSE frame as bytes, encoded once. */
  sseBytes(): Uint8Array {
    return this.#sseBytes ??= new TextEncoder().encode(this.sseFrame());
  }
}

/** One open stream connection (a WebSocket or an SSE response). */
export interface StreamConnection {
  /** The viewer's account; null for an anonymous connection to public streams. */
  readonly accountId: string | null;
  /** The access token's id (checked once a second for revocation); null when anonymous. */
  readonly tokenId: string | null;
  /** Whether notifications may go to its `user` stream (read or read:notifications). */
  readonly notifications: boolean;
  /** How the client is connected (the streaming connections gauge counts by it). */
  readonly transport: "websocket" | "sse";
  /** What it is subscribed to (usually one; WebSocket clients may add more). */
  readonly subs: readonly Subscription[];
  /** Sends an event for one of its subscriptions. Never throws; a slow client is dropped. */
  send(sub: Subscription, payload: Payload): void;
  /** Closes the connection (revoked token, server closing). */
  close(): void;
}
