/**
 * What the collection commands read and write inside their transactions:
 * the collection locked for the change, its live items, the next position,
 * and the `updated_at` every change bumps (so list and single answers of
 * one viewer stay equal, masto.js compares them).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accounts, collectionItems, collections } from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";
import { NotPermittedError } from "../relationships/follow_rows.ts";

/** A collection as the commands need it. */
export interface LockedCollection {
  id: string;
  accountId: string;
  local: boolean;
  uri: string | null;
  name: string;
  description: string | null;
  ownerUsername: string;
  ownerDomain: string | null;
}

/**
 * The collection `id`, locked for the rest of the transaction; NotFoundError
 * when unknown or its owner is suspended or deleted.
 */
export async function lockCollection(tx: Executor, id: string): Promise<LockedCollection> {
  const [row] = await tx.select({
    id: collections.id,
    accountId: collections.accountId,
    local: collections.local,
    uri: collections.uri,
    name: collections.name,
    description: collections.description,
    ownerUsername: accounts.username,
    ownerDomain: accounts.domain,
  }).from(collections).innerJoin(accounts, eq(accounts.id, collections.accountId))
    .where(and(
      eq(collections.id, id),
      sql`${accounts.suspendedAt} IS NULL AND ${accounts.deletedAt} IS NULL`,
    ))
    .for("update", { of: collections }).limit(1);
  if (!row) throw new NotFoundError();
  return row;
}

/** The collection `id`, locked, which `ownerId` must own and which must be local (403 otherwise). */
export async function lockOwnCollection(
  tx: Executor,
  ownerId: string,
  id: string,
): Promise<LockedCollection> {
  const row = await lockCollection(tx, id);
  if (row.accountId !== ownerId || !row.local) throw new NotPermittedError();
  return row;
}

/** How many pending and accepted items the collection holds. */
export async function liveItemCount(tx: Executor, collectionId: string): Promise<number> {
  const [row] = await tx.select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(collectionItems).where(and(
      eq(collectionItems.collectionId, collectionId),
      inArray(collectionItems.state, ["pending", "accepted"]),
    ));
  return row?.n ?? 0;
}

/** The position after the collection's last item. */
export async function nextPosition(tx: Executor, collectionId: string): Promise<number> {
  const [row] = await tx.select({
    next: sql<number>`coalesce(max(${collectionItems.position}) + 1, 0)`.mapWith(Number),
  }).from(collectionItems).where(eq(collectionItems.collectionId, collectionId));
  return row?.next ?? 0;
}

/** Marks the collection changed now; returns the new `updated_at`. */
export async function touchCollection(tx: Executor, collectionId: string): Promise<Date> {
  const now = new Date();
  await tx.update(collections).set({ updatedAt: now }).where(eq(collections.id, collectionId));
  return now;
}
