/**
 * The server-sent-events streams (`/api/v1/streaming/user` and the others,
 * streams.ts streamOfPath): one subscription per response, written as
 * `event: …\ndata: …\n\n`, opened with `:)` and kept alive with a `:thump`
 * comment every {@link HEARTBEAT_MS} (one timer for all SSE connections of
 * the hub, {@link SseHeartbeat}). A client that stops reading, whose queue passes
 * {@link MAX_QUEUED_BYTES}, is dropped.
 */
import type { Payload, StreamConnection } from "./frames.ts";
import type { StreamHub } from "./hub.ts";
import type { StreamCredentials } from "./auth.ts";
import { mayReadNotifications, type Subscription } from "./streams.ts";

export const HEARTBEAT_MS = 15_000;

/** Bytes an SSE client may leave unread before it is dropped. */
export const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

const encoder = new TextEncoder();
const OPENING = encoder.encode(":)\n");
const THUMP = encoder.encode(":thump\n");

/**
 * The one heartbeat of a hub's SSE connections (StreamHub holds it): a timer
 * runs while at least one is open.
 */
export class SseHeartbeat {
  readonly #open = new Set<SseConnection>();
  #timer: ReturnType<typeof setInterval> | null = null;

  join(conn: SseConnection): void {
    this.#open.add(conn);
    this.#timer ??= setInterval(() => {
      for (const open of this.#open) open.write(THUMP);
    }, HEARTBEAT_MS);
  }

  leave(conn: SseConnection): void {
    this.#open.delete(conn);
    if (this.#open.size === 0) this.stop();
  }

  /** Stops the timer (the hub is closing; its connections are closed with it). */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}

export class SseConnection implements StreamConnection {
  readonly subs: Subscription[];
  readonly accountId: string | null;
  readonly tokenId: string | null;
  readonly notifications: boolean;
  readonly transport = "sse";
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  readonly #hub: StreamHub;

  constructor(sub: Subscription, credentials: StreamCredentials, hub: StreamHub) {
    this.subs = [sub];
    this.accountId = credentials.accountId;
    this.tokenId = credentials.tokenId;
    this.notifications = mayReadNotifications(credentials.scopes);
    this.#hub = hub;
  }

  /** The response body: registers with the hub once the response starts. */
  body(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        controller.enqueue(OPENING);
        this.#hub.add(this);
        this.#hub.sseHeartbeat.join(this);
      },
      cancel: () => this.#forget(),
    }, new ByteLengthQueuingStrategy({ highWaterMark: MAX_QUEUED_BYTES }));
  }

  /** Writes bytes, dropping the client when it lags too far behind. */
  write(bytes: Uint8Array): void {
    const controller = this.#controller;
    if (!controller) return;
    if ((controller.desiredSize ?? 0) < 0) {
      this.close();
      return;
    }
    try {
      controller.enqueue(bytes);
    } catch {
      this.#forget();
    }
  }

  send(_sub: Subscription, payload: Payload): void {
    this.write(payload.sseBytes());
  }

  close(): void {
    const controller = this.#controller;
    this.#forget();
    try {
      controller?.close();
    } catch { /* already closed */ }
  }

  #forget(): void {
    this.#controller = null;
    this.#hub.remove(this);
    this.#hub.sseHeartbeat.leave(this);
  }
}

/** The SSE response for one subscription (credentials and access already checked). */
export function openEventStream(
  hub: StreamHub,
  sub: Subscription,
  credentials: StreamCredentials,
): Response {
  const conn = new SseConnection(sub, credentials, hub);
  return new Response(conn.body(), {
    headers: {
      "Content-Type": "text/event-stream",
      "Cache-Control": "private, no-store",
      // nginx: pass events on as they come.
      "X-Accel-Buffering": "no",
    },
  });
}
