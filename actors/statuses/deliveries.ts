/**
 * The deliveries status commands ask of federation/, through ctx.outbox.
 *
 * The federation work implements these in federation/outbox/ and adds the
 * interface to actors/outbox.ts; until an implementation is wired, the calls
 * below do nothing, so posting works with or without federation.
 */
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";

const logger = getLogger(["rookery", "statuses"]);

/** What status commands ask federation/ to deliver (after their writes commit). */
export interface StatusDeliveries {
  /** A local status was posted: Create(Note) to its audience. */
  statusCreated(statusId: string): Promise<void>;
  /** A local status was edited: Update(Note). */
  statusUpdated(statusId: string): Promise<void>;
  /** A local status was deleted (the row is kept, marked deleted): Delete(Note). */
  statusDeleted(statusId: string): Promise<void>;
}

/** Calls one delivery if the outbox has it; a failure to queue is logged, never thrown. */
export async function deliver(
  ctx: AppContext,
  name: keyof StatusDeliveries,
  statusId: string,
): Promise<void> {
  const outbox = ctx.outbox as unknown as Partial<StatusDeliveries>;
  const fn = outbox[name];
  if (typeof fn !== "function") return;
  try {
    await fn.call(outbox, statusId);
  } catch (error) {
    logger.warn("Could not queue {name} for {statusId}: {error}", { name, statusId, error });
  }
}
