/**
 * How commands promise a delivery: {@link recordDelivery} writes an
 * `outbox_intents` row in the command's own transaction, so the delivery
 * exists exactly when the change it announces does. Nothing is sent here.
 *
 * The relay (federation/outbox/relay.ts) hands each intent to the Outbox
 * (actors/outbox/mod.ts), which builds the activity from the stored rows and
 * queues it, then deletes the intent. The row's NOTIFY reaches listeners only
 * at commit, which is when the process that wrote relays it (the fast path);
 * workers sweep what a crash or a failed enqueue left behind.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import type { Outbox } from "./mod.ts";

/** The channel the relay listens on. */
export const OUTBOX_CHANNEL = "rookery_outbox";

/**
 * Names this process in the notification, so that only the process that
 * wrote the intent relays it at once (other processes leave it to the sweep).
 */
export const PROCESS_TOKEN = crypto.randomUUID();

/** An Outbox method: what an intent asks for. */
export type DeliveryMethod = keyof Outbox;

/** The arguments of an Outbox method, as recorded (they must survive JSON). */
export type DeliveryArgs<M extends DeliveryMethod> = Parameters<Outbox[M]>;

/**
 * Records, in `tx`, that `method(...args)` of the Outbox is to run once the
 * transaction commits. Call it inside the transaction of the write it
 * announces; a rolled-back write takes its intent with it.
 */
export async function recordDelivery<M extends DeliveryMethod>(
  tx: Executor,
  method: M,
  ...args: DeliveryArgs<M>
): Promise<void> {
  // One statement: the row and the wake-up (sent by PostgreSQL at commit).
  await tx.execute(sql`WITH intent AS (
      INSERT INTO outbox_intents (id, method, args)
      VALUES (${newId()}, ${method}, ${JSON.stringify(args)}::jsonb))
    SELECT pg_notify(${OUTBOX_CHANNEL}, ${PROCESS_TOKEN})`);
}
