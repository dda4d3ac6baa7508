/**
 * Pending e-mail subscriptions that were never confirmed go after 48 hours,
 * when their confirmation link has expired (tokens.ts): an address someone
 * typed is not kept longer than the link that could confirm it.
 */
import { and, isNull, lt } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { emailSubscriptions } from "../../db/schema/mod.ts";
import { CONFIRM_VALID_MS } from "./tokens.ts";

/** Deletes the unconfirmed subscriptions older than a confirmation link; returns how many. */
export async function purgePendingSubscriptions(db: Executor, now = new Date()): Promise<number> {
  const rows = await db.delete(emailSubscriptions).where(and(
    isNull(emailSubscriptions.confirmedAt),
    lt(emailSubscriptions.createdAt, new Date(now.getTime() - CONFIRM_VALID_MS)),
  )).returning({ id: emailSubscriptions.id });
  return rows.length;
}
