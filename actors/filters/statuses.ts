/**
 * A filter's statuses (/api/v2/filters/:id/statuses and
 * /api/v2/filters/statuses/:id): statuses the owner filtered one by one.
 * Only a status the owner may see can be added; one the owner cannot see,
 * like an unknown one, is "Status must exist", so the answer tells nothing
 * about statuses hidden from them.
 */
import { and, asc, count, eq } from "drizzle-orm";
import type { Db, Executor } from "../../db/connection.ts";
import { customFilterStatuses } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { findVisibleStatus } from "../../db/queries/visibility.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { limitReached, MAX_STATUSES_PER_FILTER } from "./rules.ts";
import { filtersChanged, type FilterStatusRow, findOwnFilterRow } from "./filters.ts";

/** The statuses of the account's filter, oldest first. */
export async function filterStatusesOf(
  db: Executor,
  accountId: string,
  filterId: string,
): Promise<FilterStatusRow[]> {
  await findOwnFilterRow(db, accountId, filterId);
  return await db.select().from(customFilterStatuses)
    .where(eq(customFilterStatuses.customFilterId, filterId))
    .orderBy(asc(customFilterStatuses.id));
}

/** Adds a status to the account's filter; `statusId` null or malformed: "Status must exist". */
export async function addFilterStatus(
  db: Db,
  accountId: string,
  filterId: string,
  statusId: string | null,
): Promise<FilterStatusRow> {
  return await db.transaction(async (tx) => {
    const filter = await findOwnFilterRow(tx, accountId, filterId, true);
    const problems = new Problems();
    const status = statusId ? await findVisibleStatus(tx, accountId, statusId) : null;
    if (!status) problems.add("status", "ERR_BLANK", "must exist");
    problems.throwIfAny();
    const [{ n }] = await tx.select({ n: count() }).from(customFilterStatuses)
      .where(eq(customFilterStatuses.customFilterId, filter.id));
    if (n >= MAX_STATUSES_PER_FILTER) {
      limitReached(`A filter may hold at most ${MAX_STATUSES_PER_FILTER} statuses`);
    }
    const [row] = await tx.insert(customFilterStatuses).values({
      id: newId(),
      customFilterId: filter.id,
      accountId,
      statusId: status!.id,
    }).onConflictDoNothing().returning();
    if (!row) {
      problems.add("status", "ERR_TAKEN", "has already been taken");
      problems.throwIfAny();
    }
    await filtersChanged(tx, accountId);
    return row;
  });
}

/** One of the account's filter statuses, or NotFoundError. */
export async function findOwnFilterStatus(
  db: Executor,
  accountId: string,
  id: string,
): Promise<FilterStatusRow> {
  const [row] = await db.select().from(customFilterStatuses).where(and(
    eq(customFilterStatuses.id, id),
    eq(customFilterStatuses.accountId, accountId),
  ));
  if (!row) throw new NotFoundError();
  return row;
}

/** Removes one of the account's filter statuses. */
export async function deleteFilterStatus(db: Db, accountId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const gone = await tx.delete(customFilterStatuses).where(and(
      eq(customFilterStatuses.id, id),
      eq(customFilterStatuses.accountId, accountId),
    )).returning({ id: customFilterStatuses.id });
    if (gone.length === 0) throw new NotFoundError();
    await filtersChanged(tx, accountId);
  });
}
