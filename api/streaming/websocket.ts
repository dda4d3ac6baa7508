/**
 * `GET /api/v1/streaming` as a WebSocket: Mastodon's multiplexed protocol.
 * A client subscribes with `?stream=` (and `tag` / `list`) in the URL and
 * with text frames `{"type":"subscribe"|"unsubscribe","stream":…,"tag"|"list":…}`;
 * it receives `{"stream":[…],"event":…,"payload":"…"}` frames and, for a
 * refused subscription, `{"error":…,"status":…}` as Mastodon sends them.
 *
 * Keep-alive: Deno pings an idle socket and closes it when no pong comes
 * back ({@link IDLE_TIMEOUT_S}). A slow client, whose unsent frames pass
 * {@link MAX_BUFFERED_BYTES} (read every {@link BUFFER_CHECK_EVERY} frames), is dropped
 * rather than buffered without end.
 */
import type { AppContext } from "../../context.ts";
import type { StreamConnection } from "./frames.ts";
import type { Payload } from "./frames.ts";
import type { StreamHub } from "./hub.ts";
import type { StreamCredentials } from "./auth.ts";
import { checkSubscription } from "./auth.ts";
import {
  mayReadNotifications,
  parseSubscription,
  sameSubscription,
  StreamError,
} from "./streams.ts";
import type { Subscription } from "./streams.ts";
import { parseJsonExact } from "../params.ts";

/**
 * Deno's idle timeout. Deno keeps one timer per socket, started again by
 * every frame the client sends (a pong too), never by one the server
 * sends: a client that only listens is pinged after half of it and
 * dropped when no pong comes in the other half. 60 s pings every 30 s,
 * as Mastodon's streaming server does, and drops a dead peer within a
 * minute. Each ping is a write of its own (a system call and the
 * loopback's or network's receiving end: `op_ws_send_ping` was 610 ms of
 * the 23 s posting phase of a 10,000-socket run at 30 s, a ping every
 * 15 s), so the cadence is what the server pays for keep-alive.
 */
export const IDLE_TIMEOUT_S = 60;

/** Unsent bytes a client may lag behind before it is dropped. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/**
 * Frames sent between two reads of the unsent bytes: the read is a call
 * into the runtime, 4% of a post's sends to 10,000 sockets when made for
 * each. A slow client is dropped within this many frames past the limit.
 */
export const BUFFER_CHECK_EVERY = 16;

/** Subscriptions one socket may hold (each costs the hub an index entry). */
export const MAX_SUBSCRIPTIONS = 64;

/** Client messages that may wait to be handled (each may ask the database). */
const MAX_WAITING = 16;

/** The longest client message read (a subscribe frame is a few dozen bytes). */
const MAX_MESSAGE_LENGTH = 4096;

/** Close codes: normal; a client too slow to keep up (application-defined range). */
const CLOSE_NORMAL = 1000;
const CLOSE_TOO_SLOW = 4000;

export class WebSocketConnection implements StreamConnection {
  subs: Subscription[] = [];
  readonly accountId: string | null;
  readonly tokenId: string | null;
  readonly notifications: boolean;
  readonly transport = "websocket";
  readonly #socket: WebSocket;
  readonly #credentials: StreamCredentials;
  /** Client messages are handled one after another (a list check is async). */
  #pending: Promise<void> = Promise.resolve();
  /** How many of them wait: a client sending faster than they are handled is refused. */
  #waiting = 0;
  /** Frames sent since the unsent bytes were last read. */
  #unchecked = 0;

  constructor(
    socket: WebSocket,
    credentials: StreamCredentials,
    readonly hub: StreamHub,
    readonly ctx: AppContext,
  ) {
    this.#socket = socket;
    this.#credentials = credentials;
    this.accountId = credentials.accountId;
    this.tokenId = credentials.tokenId;
    this.notifications = mayReadNotifications(credentials.scopes);
  }

  send(sub: Subscription, payload: Payload): void {
    const socket = this.#socket;
    if (socket.readyState !== WebSocket.OPEN) return;
    if (this.#unchecked > 0) this.#unchecked--;
    else {
      this.#unchecked = BUFFER_CHECK_EVERY - 1;
      if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
        this.hub.remove(this);
        this.#close(CLOSE_TOO_SLOW, "Too slow");
        return;
      }
    }
    try {
      socket.send(payload.websocketFrame(sub));
    } catch {
      this.hub.remove(this);
    }
  }

  close(): void {
    this.#close(CLOSE_NORMAL, "");
  }

  #close(code: number, reason: string): void {
    try {
      this.#socket.close(code, reason);
    } catch { /* already closing */ }
  }

  /** Answers a refused request on the socket. */
  refuse(error: StreamError): void {
    this.#error(error);
  }

  #error(error: StreamError): void {
    if (this.#socket.readyState !== WebSocket.OPEN) return;
    this.#socket.send(JSON.stringify({ error: error.message, status: error.status }));
  }

  /** Subscribes (the URL's `stream`, or a subscribe message). */
  subscribe(stream: unknown, params: { tag?: unknown; list?: unknown }): void {
    this.#enqueue(async () => {
      try {
        const sub = parseSubscription(stream, params);
        await checkSubscription(this.ctx, this.#credentials, sub);
        if (this.subs.some((s) => sameSubscription(s, sub))) return;
        if (this.subs.length >= MAX_SUBSCRIPTIONS) {
          throw new StreamError(400, "Too many subscriptions");
        }
        this.subs = [...this.subs, sub];
        this.hub.update(this);
        // What it missed since the socket opened (hub.ts: a subscribe frame
        // may trail the event the client's own request caused).
        this.hub.replay(this, sub);
      } catch (error) {
        if (error instanceof StreamError) this.#error(error);
        else throw error;
      }
    });
  }

  /** Runs a client request after the earlier ones; refuses it when too many wait. */
  #enqueue(task: () => Promise<void> | void): void {
    if (this.#waiting >= MAX_WAITING) {
      this.#error(new StreamError(429, "Too many requests"));
      return;
    }
    this.#waiting++;
    this.#pending = this.#pending.then(task)
      .catch(() => this.#error(new StreamError(400, "Could not subscribe")))
      .finally(() => this.#waiting--);
  }

  unsubscribe(stream: unknown, params: { tag?: unknown; list?: unknown }): void {
    this.#enqueue(() => {
      try {
        const sub = parseSubscription(stream, params);
        const kept = this.subs.filter((s) => !sameSubscription(s, sub));
        if (kept.length === this.subs.length) return;
        this.subs = kept;
        this.hub.update(this);
      } catch (error) {
        if (error instanceof StreamError) this.#error(error);
      }
    });
  }

  /**
   * A text frame from the client; anything unreadable is ignored, as Mastodon
   * does. Ids sent as numbers past 2^53 are read exactly, as the body parser
   * reads them.
   */
  received(data: unknown): void {
    if (typeof data !== "string" || data.length > MAX_MESSAGE_LENGTH) return;
    let message: unknown;
    try {
      message = parseJsonExact(data);
    } catch {
      return;
    }
    if (typeof message !== "object" || message == null) return;
    const { type, stream, tag, list } = message as Record<string, unknown>;
    if (type === "subscribe") this.subscribe(stream, { tag, list });
    else if (type === "unsubscribe") this.unsubscribe(stream, { tag, list });
  }
}

/** The stream named in the URL, checked before the upgrade; null when none was named. */
export type InitialSubscription = { sub: Subscription } | { error: StreamError } | null;

/**
 * Checks the URL's `stream` (and `tag`, `list`) before the upgrade, so the
 * socket is subscribed the moment it opens (a list's ownership needs a
 * query). A refusal is sent on the socket once open, as Mastodon does.
 */
export async function initialSubscription(
  ctx: AppContext,
  credentials: StreamCredentials,
  query: URLSearchParams,
): Promise<InitialSubscription> {
  const stream = query.get("stream");
  if (!stream) return null;
  try {
    const sub = parseSubscription(stream, {
      tag: query.get("tag") ?? undefined,
      list: query.get("list") ?? undefined,
    });
    await checkSubscription(ctx, credentials, sub);
    return { sub };
  } catch (error) {
    if (error instanceof StreamError) return { error };
    throw error;
  }
}

/**
 * Upgrades the request (credentials and the URL's stream already checked)
 * and registers the socket with the hub once open. Returns the 101 response.
 */
export function openWebSocket(
  ctx: AppContext,
  hub: StreamHub,
  request: Request,
  credentials: StreamCredentials,
  initial: InitialSubscription,
): Response {
  const { socket, response } = Deno.upgradeWebSocket(request, {
    idleTimeout: IDLE_TIMEOUT_S,
    ...(credentials.protocol ? { protocol: credentials.protocol } : {}),
  });
  const conn = new WebSocketConnection(socket, credentials, hub, ctx);
  // Listeners, not `on…` handlers: the runtime wraps each handler in a
  // closure of its own (about 440 bytes a socket for the four, in a heap
  // snapshot of 2,000 sockets); `open` is heard once.
  socket.addEventListener("open", () => {
    if (hub.closed) return conn.close();
    if (initial && "sub" in initial) conn.subs = [initial.sub];
    hub.add(conn);
    if (initial && "error" in initial) conn.refuse(initial.error);
  }, { once: true });
  socket.addEventListener("message", (event) => conn.received(event.data));
  const gone = () => hub.remove(conn);
  socket.addEventListener("close", gone);
  socket.addEventListener("error", gone);
  return response;
}
