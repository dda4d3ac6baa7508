/**
 * Inbound activities in their order: the activities of one actor are applied
 * one at a time, in the order our inboxes accepted them, whatever the race.
 *
 * Fedify queues each delivery it accepts as an `inbox` message without an
 * ordering key, so a peer's Create and Delete (or Like and Undo) ran side by
 * side and the Delete could be applied first. The queue wrapper
 * (jobs/queue.ts) gives every inbox message its actor as ordering key
 * (the actor the inbox guard matched with the signer; a relayed Create is
 * ordered with its claimed actor's), and the queue (stores/sql_queue.ts)
 * runs one message per key at a time, on every worker process together.
 * Activities of different actors still run side by side.
 *
 * A failed activity keeps its place: Fedify's retry of it replaces its row
 * (`keepPlace`), so the actor's later activities wait for it instead of
 * overtaking it. It is retried {@link INBOX_MAX_ATTEMPTS} times with
 * backoff (1 s doubling, at most a minute apart: two to three minutes in
 * all), then dropped and logged, and the actor's next activities proceed.
 */
import { createExponentialBackoffPolicy, type RetryPolicy } from "@fedify/fedify";
import { idOf } from "./guard.ts";

/** Retries of an inbound activity before it is dropped. */
export const INBOX_MAX_ATTEMPTS = 7;

/**
 * Fedify's retry policy for inbound activities: short enough that an actor's
 * later activities, which wait meanwhile, are not held for long.
 */
export const INBOX_RETRY_POLICY: RetryPolicy = createExponentialBackoffPolicy({
  initialDelay: { seconds: 1 },
  factor: 2,
  maxDelay: { minutes: 1 },
  maxAttempts: INBOX_MAX_ATTEMPTS,
});

/** What of Fedify's inbox message is read here. */
interface InboxMessage {
  type: "inbox";
  activity: { actor?: unknown };
  attempt?: number;
}

function isInboxMessage(message: unknown): message is InboxMessage {
  if (!message || typeof message !== "object") return false;
  const { type, activity } = message as { type?: unknown; activity?: unknown };
  return type === "inbox" && activity != null && typeof activity === "object";
}

/** The ordering key of one of Fedify's inbox messages (its actor); null for other messages. */
export function inboxOrderingKey(message: unknown): string | null {
  if (!isInboxMessage(message)) return null;
  const actor = idOf(message.activity.actor);
  return actor == null ? null : `inbox:${actor}`;
}

/** Whether an inbox message is Fedify's retry of one that failed. */
export function isInboxRetry(message: unknown): boolean {
  return isInboxMessage(message) && (message.attempt ?? 0) > 0;
}
