/**
 * The shapes of the SQL message queue (sql_queue.ts): its options, its
 * cross-process signal, its lanes and what a claim brings. Apart from the
 * queue so that the queue's module is its behaviour only.
 */
import type { MessageQueue } from "@fedify/fedify";
import type { SQL } from "drizzle-orm";
import type { HeldMark, InboxMarks } from "./inbox_marks.ts";

export interface SqlMessageQueueOptions {
  /** How long a claimed message is held before another worker may retry it (DEFAULT_LEASE_MS). */
  leaseMs?: number;
  /** Longest wait between polls when nothing wakes the worker. */
  pollMs?: number;
  /** Handlers of inbound activities and jobs run at once. */
  concurrency?: number;
  /** Deliveries run at once (delivery_lane.ts). */
  deliveryConcurrency?: number;
  /** Deliveries run at once to one host. */
  hostConcurrency?: number;
  /**
   * Release every lease when listening starts. Right when this process is
   * the only consumer (PGlite): a lease left over is from a killed process.
   */
  releaseLeasesOnStart?: boolean;
  /** Takeovers after which a message is dropped (DEFAULT_MAX_TAKEOVERS in sql_queue.ts). */
  maxTakeovers?: number;
  /** Cross-process wake-ups (PostgreSQL LISTEN/NOTIFY); absent on PGlite. */
  signal?: QueueSignal;
  /** Fedify's activity marks, read and written in the queue's statements (inbox_marks.ts). */
  marks?: InboxMarks;
}

/**
 * Wakes idle workers in other processes when messages are enqueued. The
 * payload names the lane whose messages were queued ({@link LaneName}); an
 * empty one wakes every lane.
 */
export interface QueueSignal {
  notify(lane: LaneName): Promise<void>;
  /** Calls `wake` on every notification; resolves to an unsubscribe function. */
  subscribe(wake: (payload: string) => void): Promise<() => Promise<void>>;
}

/** The lanes of SqlMessageQueue.listen: inbound activities and jobs, and deliveries. */
export type LaneName = "general" | "deliveries";

/** A queue whose retries can keep their place in line (SqlMessageQueue.keepPlace). */
export interface PlaceKeepingQueue extends MessageQueue {
  keepPlace(message: unknown, delayMs: number): boolean;
  /** Queues an ordered message, run by this process at once when it can (SqlMessageQueue.enqueueHere). */
  enqueueHere(message: unknown, orderingKey: string): Promise<void>;
}

/** This process's listen loop while it runs: what SqlMessageQueue.enqueueHere hands messages to. */
export interface Runner {
  handler: (message: any) => Promise<void> | void;
  signal?: AbortSignal;
  /** The general lane (inbound activities and jobs). */
  lane: Lane;
}

/** A message claimed by this process. */
export interface Claimed {
  id: number;
  message: unknown;
  key: string | null;
  /** A delivery's host (delivery_lane.ts). */
  host?: string | null;
  /** Times it was taken over from a worker that never finished it, this claim included. */
  takeovers?: number;
}

/** What one claim brought. */
export interface Claim {
  claimed: Claimed[];
  /** Messages it readied (claimable from the next claim on). */
  readied: number;
  /**
   * Milliseconds until one of the lane's ready messages may be claimed, as
   * the claim's statement saw the queue (null: none queued); absent when
   * the claim did not look.
   */
  nextMs?: number | null;
}

/** Work claimed and run on slots of its own (see SqlMessageQueue.listen). */
export interface Lane {
  name: LaneName;
  limit: number;
  claim(free: number): Promise<Claim>;
  /** Runs the work of one claimed message in the lane's slots. */
  run(claimed: Claimed, work: () => Promise<void>): Promise<void>;
  /** The rows (federation_queue q) the lane would claim once due. */
  rows(): SQL;
  /** The handlers running in its slots (and slots held for messages being taken). */
  running: Set<Promise<void>>;
}

/** A message claimed by this process, and what becomes of its row when the handler is done. */
export interface Handling {
  id: number;
  key: string | null;
  /** Set by keepPlace: the row is updated to this instead of deleted. */
  retry?: { message: unknown; runAt: Date };
  /** Fedify's mark of the activity, written by the delete (inbox_marks.ts). */
  mark?: HeldMark | null;
}
