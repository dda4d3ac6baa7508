/**
 * Takeovers: a claim of a queued message whose lease ran out (or that
 * PGlite's start released) takes it over from a worker that never finished
 * it: a crash, a kill or a lost lease cut its handling off. The queue
 * (sql_queue.ts, delivery_lane.ts) counts them on the row (`takeovers`),
 * and a message taken over {@link DEFAULT_MAX_TAKEOVERS} times is dropped,
 * logged, by the claim that would run it again, as a failing message ends
 * after its retries: one that ends its worker every time is not taken
 * forever, and a restart costs each message it cut off one takeover.
 */
import { getLogger } from "@logtape/logtape";
import { sql } from "drizzle-orm";
import type { Claimed } from "./queue_shapes.ts";

const logger = getLogger(["rookery", "queue"]);

/** Takeovers after which a message is dropped. */
export const DEFAULT_MAX_TAKEOVERS = 5;

/** The SET clause of a claim that counts a takeover when the row's lease had run out. */
export const TAKEN_OVER = sql`takeovers = takeovers + (locked_until IS NOT NULL)::int`;

/** What a message is, for the log: the job's name or Fedify's type (inbox, outbox…). */
function kindOf(message: unknown): string {
  const { type, job } = (message && typeof message === "object" ? message : {}) as {
    type?: unknown;
    job?: unknown;
  };
  return typeof job === "string" ? `job ${job}` : String(type ?? "message");
}

/** Whether `claimed` was taken over too often to run again; logged when so. */
export function takenOverTooOften(claimed: Claimed, maxTakeovers: number): boolean {
  const takeovers = claimed.takeovers ?? 0;
  if (takeovers < maxTakeovers) return false;
  logger.error("Queued message {id} ({kind}) dropped: its handling was cut off {takeovers} times", {
    id: claimed.id,
    kind: kindOf(claimed.message),
    takeovers,
  });
  return true;
}
