/**
 * This process's open stream connections and the ONE bus listener that
 * feeds them: bus (actors/streaming/bus.ts) -> hub (who is concerned) ->
 * render (per-viewer payloads, render.ts) -> connections.
 *
 * The hub keeps connections indexed by what events name: by account (user,
 * user:notification and direct streams, announcements), by list, and the
 * set of connections with public or hashtag subscriptions (the status
 * decides those). Events are handled one after another, so a client sees
 * them in commit order (an update before its delete).
 *
 * A subscription added to an open WebSocket also gets the events handled
 * since the connection opened that it would have received (kept 10 s, at
 * most 500): a client may send its subscribe frame and, at once, act over
 * HTTP; the event its action causes can be handled before the frame is read
 * (masto.js's suite does exactly this). Never older than the connection:
 * "everything since you connected".
 *
 * Twice a second it asks the database, in one query, whether the tokens
 * its connections hold that may have ended since (token_watch.ts: those the
 * entity triggers named, and new connections') are still live, and closes
 * the connections of revoked ones (a token may be revoked by another
 * process).
 */
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { StreamEvent } from "../../actors/streaming/bus.ts";
import { SseHeartbeat } from "./sse.ts";
import { liveTokenIds } from "../../db/queries/stream_viewers.ts";
import { SESSION_IDLE_MS } from "../../actors/auth/sessions.ts";
import { Payload, type StreamConnection } from "./frames.ts";
import { TokenWatch } from "./token_watch.ts";
import { isPublicStream, type StreamName, type Subscription } from "./streams.ts";
import {
  deliverAnnouncement,
  deliverConversation,
  deliverDelete,
  deliverNotification,
  deliverPlain,
  deliverStatus,
  deliveryFailed,
  type Target,
} from "./render.ts";

const logger = getLogger(["rookery", "streaming"]);

/** The events about announcements. */
type AnnouncementEvent = Extract<
  StreamEvent,
  { event: "announcement" | "announcement.reaction" | "announcement.delete" }
>;

/** Events waiting for dispatch beyond which new ones are dropped. */
export const MAX_BACKLOG = 10_000;

/** How often held tokens are checked against the database (a revoked token's streams close within a second). */
export const TOKEN_CHECK_MS = 500;

/** How long, and how many, handled events are kept for a late subscription. */
export const REPLAY_WINDOW_MS = 10_000;
export const REPLAY_MAX = 500;

/** A handled event, numbered in the order its targets were chosen. */
interface KeptEvent {
  seq: number;
  at: number;
  event: StreamEvent;
}

/** Keeps the targets an event goes to (all of them, or a replay's one). */
type Pick = (targets: Target[]) => Target[];
const ALL: Pick = (targets) => targets;

export class StreamHub {
  /** The keep-alive of this hub's SSE connections. */
  readonly sseHeartbeat = new SseHeartbeat();
  readonly #ctx: AppContext;
  readonly #connections = new Set<StreamConnection>();
  /** Arrays, not Sets: an account has one or two connections, and a post to 10,000 followers looks up 10,000 of them. */
  readonly #byAccount = new Map<string, StreamConnection[]>();
  /**
   * Each account's `user` subscriptions as ready targets, kept as
   * connections subscribe and leave: a post to 10,000 connected followers
   * reads one entry per follower and builds no target object, instead of
   * walking each connection's subscriptions and allocating 10,000 targets
   * before its first frame.
   */
  readonly #userTargets = new Map<string, Target[]>();
  readonly #byList = new Map<string, Set<StreamConnection>>();
  readonly #public = new Set<StreamConnection>();
  /**
   * Signed-in connections with no `user` stream yet: the only ones a kept
   * home event may be replayed to (a client that subscribes to `user` by a
   * frame after opening). Usually none.
   */
  readonly #userless = new Set<StreamConnection>();
  #queue: Promise<void> = Promise.resolve();
  /** Events received and not yet dispatched, and how many were dropped. */
  #backlog = 0;
  #dropped = 0;
  #unlisten: (() => void) | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #checking = false;
  readonly #tokenWatch = new TokenWatch();
  #closed = false;
  /** The number of the last event whose targets were chosen. */
  #seq = 0;
  #kept: KeptEvent[] = [];
  /** Each connection's `#seq` when it was added. */
  readonly #openMarks = new WeakMap<StreamConnection, number>();

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  /** Starts listening; resolves once events published from now on will arrive. */
  async start(): Promise<void> {
    this.#unlisten = await this.#ctx.core.streamBus.subscribe((event) => {
      // A process that cannot keep up drops events rather than queue them
      // without end (its clients miss them, as after a reconnection).
      if (this.#backlog >= MAX_BACKLOG) {
        if (this.#dropped++ % 1000 === 0) {
          logger.warn("Streaming is behind by {backlog} events; dropping {event}.", {
            backlog: this.#backlog,
            event: event.event,
          });
        }
        return;
      }
      this.#backlog++;
      this.#queue = this.#queue.then(() => this.#dispatch(event)).catch((error) =>
        deliveryFailed(event.event, error)
      ).finally(() => this.#backlog--);
      // The bus's quiet() waits for this event's frames.
      return this.#queue;
    });
    await this.#tokenWatch.start(this.#ctx.core.listener);
    this.#timer = setInterval(() => this.#checkTokens(), TOKEN_CHECK_MS);
  }

  get size(): number {
    return this.#connections.size;
  }

  /** Open connections by transport (the streaming connections gauge). */
  countByTransport(): Record<StreamConnection["transport"], number> {
    const counts = { websocket: 0, sse: 0 };
    for (const conn of this.#connections) counts[conn.transport]++;
    return counts;
  }

  /** Whether the hub has stopped (the process is closing): new connections are refused. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Registers a new connection. */
  add(conn: StreamConnection): void {
    this.#connections.add(conn);
    this.#openMarks.set(conn, this.#seq);
    this.#tokenWatch.opened(conn.tokenId);
    if (conn.accountId) {
      const own = this.#byAccount.get(conn.accountId);
      if (own) own.push(conn);
      else this.#byAccount.set(conn.accountId, [conn]);
    }
    this.#index(conn);
  }

  /** Keeps {@link #userless} up to date with a connection's subscriptions. */
  #trackUserless(conn: StreamConnection): void {
    if (conn.accountId && !conn.subs.some((s) => s.name === "user")) this.#userless.add(conn);
    else this.#userless.delete(conn);
  }

  /** Re-indexes a connection whose subscriptions changed. */
  update(conn: StreamConnection): void {
    if (!this.#connections.has(conn)) return;
    for (const [listId, set] of this.#byList) {
      if (set.delete(conn) && set.size === 0) this.#byList.delete(listId);
    }
    this.#public.delete(conn);
    this.#index(conn);
  }

  #index(conn: StreamConnection): void {
    this.#trackUserless(conn);
    this.#indexUserTargets(conn, true);
    for (const sub of conn.subs) {
      if (sub.list) addTo(this.#byList, sub.list, conn);
      if (isPublicStream(sub.name)) this.#public.add(conn);
    }
  }

  /**
   * Sends `sub`, just added to `conn`, the kept events handled since the
   * connection opened that concern it. Queued behind the events waiting:
   * those choose their targets later, with `sub` among them, so nothing
   * arrives twice.
   */
  replay(conn: StreamConnection, sub: Subscription): void {
    const mark = this.#openMarks.get(conn);
    if (mark === undefined) return;
    const missed = this.#kept.filter((k) => k.seq > mark);
    if (missed.length === 0) return;
    const pick: Pick = (targets) => targets.filter((t) => t.conn === conn && t.sub === sub);
    for (const kept of missed) {
      this.#queue = this.#queue.then(() => this.#dispatch(kept.event, pick)).catch((error) =>
        deliveryFailed(kept.event.event, error)
      );
    }
  }

  #keep(event: StreamEvent): void {
    const now = Date.now();
    this.#kept.push({ seq: this.#seq, at: now, event: this.#replayable(event) });
    let drop = 0;
    while (
      drop < this.#kept.length &&
      (this.#kept.length - drop > REPLAY_MAX || this.#kept[drop].at < now - REPLAY_WINDOW_MS)
    ) drop++;
    if (drop) this.#kept.splice(0, drop);
  }

  /**
   * What a replay may still need of an event: the home feeds of accounts
   * with a connection here that has no `user` stream yet (one that has it
   * receives the event now; one opened later is never replayed it). A
   * post to 10,000 connected followers keeps none of their ids for the
   * replay window, instead of 10,000 strings per post; and, as such
   * connections are few (usually none), the home list is read against
   * them, not each of its accounts' connections against it (that was 10 ms
   * of a post to 10,000 sockets, before the first frame).
   */
  #replayable(event: StreamEvent): StreamEvent {
    if (!("home" in event) || event.home.length === 0) return event;
    if (this.#userless.size === 0) return { ...event, home: [] };
    const waiting = new Set<string>();
    for (const conn of this.#userless) waiting.add(conn.accountId!);
    return { ...event, home: event.home.filter((id) => waiting.has(id)) };
  }

  /** Forgets a closed connection. */
  remove(conn: StreamConnection): void {
    if (!this.#connections.delete(conn)) return;
    if (conn.accountId) {
      const own = this.#byAccount.get(conn.accountId) ?? [];
      const at = own.indexOf(conn);
      if (at >= 0) own.splice(at, 1);
      if (own.length === 0) this.#byAccount.delete(conn.accountId);
    }
    for (const sub of conn.subs) if (sub.list) removeFrom(this.#byList, sub.list, conn);
    this.#public.delete(conn);
    this.#userless.delete(conn);
    this.#indexUserTargets(conn, false);
  }

  /** Replaces a connection's entries in {@link #userTargets} (none when it is gone). */
  #indexUserTargets(conn: StreamConnection, open: boolean): void {
    const accountId = conn.accountId;
    if (!accountId) return;
    const kept = (this.#userTargets.get(accountId) ?? []).filter((t) => t.conn !== conn);
    if (open) { for (const sub of conn.subs) if (sub.name === "user") kept.push({ conn, sub }); }
    if (kept.length > 0) this.#userTargets.set(accountId, kept);
    else this.#userTargets.delete(accountId);
  }

  /** The `user` subscriptions of these accounts' connections (targets shared, not copied). */
  #userTargetsOf(accountIds: readonly string[]): Target[] {
    const out: Target[] = [];
    const index = this.#userTargets;
    for (let i = 0; i < accountIds.length; i++) {
      const targets = index.get(accountIds[i]);
      if (targets === undefined) continue;
      for (let j = 0; j < targets.length; j++) out.push(targets[j]);
    }
    return out;
  }

  /**
   * The subscriptions named `names` of the connections of these accounts.
   * Indexed loops over arrays: a post to 10,000 connected followers walks
   * this 10,000 times per event.
   */
  #accountTargets(
    accountIds: readonly string[],
    names: readonly StreamName[],
    filter?: (conn: StreamConnection, name: StreamName) => boolean,
  ): Target[] {
    const out: Target[] = [];
    for (let i = 0; i < accountIds.length; i++) {
      const conns = this.#byAccount.get(accountIds[i]);
      if (conns === undefined) continue;
      for (let j = 0; j < conns.length; j++) {
        const conn = conns[j];
        const subs = conn.subs;
        for (let k = 0; k < subs.length; k++) {
          const sub = subs[k];
          if (names.includes(sub.name) && (!filter || filter(conn, sub.name))) {
            out.push({ conn, sub });
          }
        }
      }
    }
    return out;
  }

  #listTargets(listIds: readonly string[]): Target[] {
    const out: Target[] = [];
    for (const id of listIds) {
      for (const conn of this.#byList.get(id) ?? []) {
        for (const sub of conn.subs) if (sub.list === id) out.push({ conn, sub });
      }
    }
    return out;
  }

  #publicTargets(): Target[] {
    const out: Target[] = [];
    for (const conn of this.#public) {
      for (const sub of conn.subs) if (isPublicStream(sub.name)) out.push({ conn, sub });
    }
    return out;
  }

  /** Sends an event to its targets (a replay's `pick` keeps its one). */
  async #dispatch(event: StreamEvent, pick?: Pick): Promise<void> {
    if (!pick) {
      this.#seq++;
      if (this.#connections.size === 0) return;
      this.#keep(event);
    }
    pick ??= ALL;
    const ctx = this.#ctx;
    switch (event.event) {
      case "update":
      case "status.update":
      case "delete": {
        const direct = pick(this.#userTargetsOf(event.home ?? []))
          .concat(pick(this.#listTargets(event.lists ?? [])));
        const candidates = pick(this.#publicTargets());
        if (event.event === "delete") {
          await deliverDelete(ctx, event.statusId, direct, candidates);
        } else {
          await deliverStatus(ctx, event.event, event.statusId, direct, candidates);
        }
        return;
      }
      case "notification":
        await deliverNotification(
          ctx,
          event.accountId,
          event.notificationId,
          pick(this.#notificationTargets(event.accountId)),
        );
        return;
      case "notifications_merged":
        // Mastodon's payload is "1".
        await deliverPlain(
          pick(this.#notificationTargets(event.accountId)),
          new Payload("notifications_merged", "1"),
        );
        return;
      case "conversation":
        await deliverConversation(
          ctx,
          event.accountId,
          event.conversationId,
          pick(this.#accountTargets([event.accountId], ["direct"])),
        );
        return;
      case "filters_changed":
        await deliverPlain(
          pick(this.#userTargetsOf([event.accountId])),
          new Payload("filters_changed", undefined),
        );
        return;
      case "announcement":
      case "announcement.reaction":
      case "announcement.delete":
        return await this.#dispatchAnnouncement(event, pick);
    }
  }

  /** Announcements go to every signed-in user stream of this process. */
  async #dispatchAnnouncement(event: AnnouncementEvent, pick: Pick): Promise<void> {
    const ctx = this.#ctx;
    switch (event.event) {
      case "announcement":
        await deliverAnnouncement(
          ctx,
          event.announcementId,
          pick(this.#everyUserStream()),
        );
        return;
      case "announcement.reaction":
        await deliverPlain(
          pick(this.#everyUserStream()),
          new Payload(
            "announcement.reaction",
            JSON.stringify({
              name: event.name,
              count: event.count,
              announcement_id: event.announcementId,
            }),
          ),
        );
        return;
      case "announcement.delete":
        await deliverPlain(
          pick(this.#everyUserStream()),
          new Payload("announcement.delete", event.announcementId),
        );
        return;
    }
  }

  /** Every signed-in connection's `user` stream (announcements). */
  #everyUserStream(): Target[] {
    return this.#userTargetsOf([...this.#userTargets.keys()]);
  }

  /** The streams a notification of `accountId` goes to (`user` only when it asked for them). */
  #notificationTargets(accountId: string): Target[] {
    return this.#accountTargets(
      [accountId],
      ["user", "user:notification"],
      (conn, name) => name !== "user" || conn.notifications,
    );
  }

  /** Closes the connections whose token was revoked (or whose user was disabled). */
  async #checkTokens(): Promise<void> {
    if (this.#checking) return;
    const held = this.#tokenWatch.due(this.#connections, Date.now());
    if (held.size === 0) return;
    this.#checking = true;
    try {
      const live = await liveTokenIds(this.#ctx.database, [...held], SESSION_IDLE_MS);
      // Only tokens that were asked about: connections opened during the
      // query are not in `live` either, and must not be closed for it.
      for (const conn of [...this.#connections]) {
        if (conn.tokenId && held.has(conn.tokenId) && !live.has(conn.tokenId)) {
          this.remove(conn);
          conn.close();
        }
      }
    } catch (error) {
      this.#tokenWatch.failed();
      if (!this.#closed) logger.warn("Could not check streaming tokens: {error}", { error });
    } finally {
      this.#checking = false;
    }
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#tokenWatch.stop();
    this.sseHeartbeat.stop();
    this.#unlisten?.();
    for (const conn of [...this.#connections]) {
      this.remove(conn);
      conn.close();
    }
    await this.#queue;
  }
}

function addTo(map: Map<string, Set<StreamConnection>>, key: string, conn: StreamConnection) {
  let set = map.get(key);
  if (!set) map.set(key, set = new Set());
  set.add(conn);
}

function removeFrom(map: Map<string, Set<StreamConnection>>, key: string, conn: StreamConnection) {
  const set = map.get(key);
  if (set?.delete(conn) && set.size === 0) map.delete(key);
}

/**
 * The process's hub, started at the first connection (process/core.ts holds
 * one); a failed start is tried again by the next connection.
 */
export class StreamHubStarter {
  #hub: Promise<StreamHub> | null = null;

  /** The hub for this application, started now if it was not. */
  get(ctx: AppContext): Promise<StreamHub> {
    if (this.#hub) return this.#hub;
    const created = new StreamHub(ctx);
    const hub = created.start().then(() => created);
    this.#hub = hub;
    hub.catch(() => {
      if (this.#hub === hub) this.#hub = null;
    });
    return hub;
  }

  /** Open connections by transport; none before the first stream. */
  async countByTransport(): Promise<Record<StreamConnection["transport"], number>> {
    const hub = this.#hub ? await this.#hub.catch(() => null) : null;
    return hub?.countByTransport() ?? { websocket: 0, sse: 0 };
  }

  /** Closes the hub's connections and its subscription (the process is closing). */
  async close(): Promise<void> {
    const hub = this.#hub;
    if (!hub) return;
    this.#hub = null;
    try {
      await (await hub).close();
    } catch { /* never started */ }
  }
}

/** The process's hub for this application, started at the first connection. */
export function streamHub(ctx: AppContext): Promise<StreamHub> {
  return ctx.core.streamHub.get(ctx);
}
