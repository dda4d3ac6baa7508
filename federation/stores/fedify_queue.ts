/**
 * The queue Fedify is given: the database's queue (sql_queue.ts), with what
 * Rookery adds to Fedify's own messages.
 * - Inbound activities are queued behind their actor's earlier ones (their
 *   actor is the ordering key), and Fedify's retry of one that failed keeps
 *   its place in that line when the queue can (federation/inbox/order.ts).
 * - Deliveries to a server we do not federate with, or to our own inboxes,
 *   are dropped, when queued and again when their turn comes.
 * - Deliveries carry our User-Agent.
 * Rookery's own jobs ride on the same queue; rookery.ts wraps this one with
 * jobs/queue.ts, which hands them to their runner.
 */
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { federationRefusedUrl } from "../../actors/moderation/domain_rules.ts";
import { productUserAgent } from "../../version.ts";
import type { PlaceKeepingQueue } from "./sql_queue.ts";
import { inboxOrderingKey, isInboxRetry } from "../inbox/order.ts";

const logger = getLogger(["rookery", "federation", "queue"]);

/** Fedify's messages through the database's queue (see the module comment). */
export class FedifyQueue implements MessageQueue {
  readonly #inner: MessageQueue;
  readonly #ctx: Omit<AppContext, "federation">;
  /** Inbox messages handled without Fedify's parse (federation/inbox/plain_dispatch.ts). */
  #plainInbox: ((message: unknown) => Promise<boolean>) | null = null;

  /** `ctx` is the process's context (completed after the federation is built). */
  constructor(inner: MessageQueue, ctx: Omit<AppContext, "federation">) {
    this.#inner = inner;
    this.#ctx = ctx;
  }

  /**
   * Gives the queued messages to `handle` before Fedify's handler: those it
   * handles (true) Fedify's never sees. Set once the federation is built.
   */
  handleFirst(handle: (message: unknown) => Promise<boolean>): void {
    this.#plainInbox = handle;
  }

  get nativeRetrial(): boolean | undefined {
    return this.#inner.nativeRetrial;
  }

  async enqueue(message: any, options?: MessageQueueEnqueueOptions): Promise<void> {
    if (await this.#refusedDelivery(message)) return;
    const inboxKey = inboxOrderingKey(message);
    if (inboxKey != null) return await this.#enqueueInbox(message, inboxKey, options);
    return await this.#inner.enqueue(this.#withUserAgent(message), options);
  }

  /**
   * An inbound activity, queued behind its actor's earlier ones; Fedify's
   * retry of one that failed keeps its place in that line when the queue
   * can (federation/inbox/order.ts). A new one is run by this process at
   * once when it runs the queue and has a slot free (sql_queue.ts's
   * enqueueHere): the delivery's 202 does not wait for it.
   */
  async #enqueueInbox(message: unknown, orderingKey: string, options?: MessageQueueEnqueueOptions) {
    const inner = this.#inner as Partial<PlaceKeepingQueue>;
    const delayMs = options?.delay ? Math.max(0, options.delay.total("millisecond")) : 0;
    const retry = isInboxRetry(message);
    if (retry && inner.keepPlace?.(message, delayMs)) return;
    if (!retry && delayMs === 0 && inner.enqueueHere) {
      return await inner.enqueueHere(message, orderingKey);
    }
    await this.#inner.enqueue(message, { ...options, orderingKey });
  }

  async enqueueMany(messages: readonly any[], options?: MessageQueueEnqueueOptions): Promise<void> {
    // Inbound activities each have their own key (Fedify queues them one by one anyway).
    if (messages.some((m) => inboxOrderingKey(m) != null)) {
      for (const message of messages) await this.enqueue(message, options);
      return;
    }
    const kept: unknown[] = [];
    for (const message of messages) {
      if (!await this.#refusedDelivery(message)) kept.push(this.#withUserAgent(message));
    }
    if (kept.length === 0) return;
    if (this.#inner.enqueueMany) return await this.#inner.enqueueMany(kept, options);
    await Promise.all(kept.map((m) => this.#inner.enqueue(m, options)));
  }

  /**
   * Whether `message` is a delivery (Fedify's `outbox` message, one per
   * inbox) to a server we do not federate with: suspended by a domain
   * block, or not allowed in allowlist mode (actors/moderation/domain_rules.ts). Such
   * deliveries are dropped when queued, and again when their turn comes
   * (a block made after they were queued, or a retry). So are deliveries to
   * our own origin's inboxes, for every activity type: local accounts are
   * never delivered to over HTTP.
   */
  async #refusedDelivery(message: unknown): Promise<boolean> {
    if (!message || typeof message !== "object") return false;
    const { type, inbox } = message as { type?: unknown; inbox?: unknown };
    if (type !== "outbox" || typeof inbox !== "string") return false;
    if (this.#isOwnInbox(inbox)) {
      // Local recipients have it already (fan-out, notifications); a POST to
      // our own inbox would be taken as a remote server's delivery.
      logger.debug("Dropped a delivery to our own inbox {inbox}.", { inbox });
      return true;
    }
    if (!await federationRefusedUrl(this.#ctx, inbox)) return false;
    logger.info("Dropped a delivery to {inbox}: this server does not federate with it.", {
      inbox,
    });
    return true;
  }

  /** Whether `inbox` is on this server's own origin (whatever activity is sent there). */
  #isOwnInbox(inbox: string): boolean {
    try {
      return new URL(inbox).origin === this.#ctx.config.origin;
    } catch {
      return false;
    }
  }

  /**
   * A delivery (Fedify's `outbox` message) with our User-Agent among its
   * headers: Fedify sends the headers a message carries and adds no
   * User-Agent of its own, so deliveries went out as `Deno/…`. Added here
   * rather than in the process's fetch because several instances may share
   * one process (tests) and each speaks for its own origin.
   */
  #withUserAgent(message: unknown): unknown {
    if (!message || typeof message !== "object") return message;
    const { type, headers } = message as { type?: unknown; headers?: unknown };
    if (type !== "outbox") return message;
    const current = headers && typeof headers === "object" ? headers as Record<string, string> : {};
    if (Object.keys(current).some((name) => name.toLowerCase() === "user-agent")) return message;
    const userAgent = productUserAgent(this.#ctx.config.origin);
    return { ...message, headers: { ...current, "User-Agent": userAgent } };
  }

  getDepth(): Promise<MessageQueueDepth> {
    return this.#inner.getDepth?.() ?? Promise.resolve({ queued: 0 });
  }

  listen(
    handler: (message: any) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    return this.#inner.listen(async (message) => {
      if (await this.#refusedDelivery(message)) return;
      if (await this.#plainInbox?.(message)) return;
      // Deliveries queued before the header was added get it too.
      return await handler(this.#withUserAgent(message));
    }, options);
  }
}
