/**
 * Reading interaction requests (issue 34): the pending ones of a user's
 * statuses, newest first, through the partial index on pending rows.
 */
import { and, eq, inArray, type SQL } from "drizzle-orm";
import type { Executor } from "../connection.ts";
import { interactionRequests } from "../schema/mod.ts";

export type InteractionRequestRow = typeof interactionRequests.$inferSelect;

/** What a list of pending requests may be narrowed to. */
export interface RequestFilters {
  statusId?: string;
  /** The request types kept (favourite, reply, reblog); at least one. */
  types: readonly string[];
}

/**
 * One page of the pending requests about statuses of `targetAccountId`.
 * `window` bounds and orders by id (api/relation_pagination.ts's pageWindow).
 */
export async function pendingRequestsPage(
  db: Executor,
  targetAccountId: string,
  filters: RequestFilters,
  window: { where: SQL | undefined; order: SQL },
  limit: number,
): Promise<InteractionRequestRow[]> {
  return await db.select().from(interactionRequests).where(and(
    eq(interactionRequests.targetAccountId, targetAccountId),
    eq(interactionRequests.state, "pending"),
    inArray(interactionRequests.type, [...filters.types]),
    filters.statusId ? eq(interactionRequests.targetStatusId, filters.statusId) : undefined,
    window.where,
  )).orderBy(window.order).limit(limit);
}

/** The request `id` about a status of `targetAccountId`, in any state; null if none. */
export async function ownRequest(
  db: Executor,
  targetAccountId: string,
  id: string,
): Promise<InteractionRequestRow | null> {
  const [row] = await db.select().from(interactionRequests).where(and(
    eq(interactionRequests.id, id),
    eq(interactionRequests.targetAccountId, targetAccountId),
  )).limit(1);
  return row ?? null;
}
