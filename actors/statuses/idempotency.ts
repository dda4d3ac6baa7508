/**
 * The Idempotency-Key header of POST /api/v1/statuses: the same key from the
 * same account within an hour answers the first status. The key row is
 * written in the posting transaction, so concurrent duplicates wait for the
 * first and reuse it.
 */
import { and, eq, gte, lt } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { idempotencyKeys, statuses } from "../../db/schema/mod.ts";

type StatusRow = typeof statuses.$inferSelect;

/** Idempotency keys are honoured this long (Mastodon keeps them an hour). */
export const IDEMPOTENCY_TTL_MS = 60 * 60 * 1000;

/**
 * Claims an idempotency key in the transaction. Returns the status an
 * earlier request with the same key created, or null when this request is
 * the first (the key then points at `statusId`).
 */
export async function claimIdempotencyKey(
  tx: Executor,
  accountId: string,
  key: string,
  statusId: string,
): Promise<string | null> {
  await tx.delete(idempotencyKeys).where(and(
    eq(idempotencyKeys.accountId, accountId),
    eq(idempotencyKeys.key, key),
    lt(idempotencyKeys.createdAt, new Date(Date.now() - IDEMPOTENCY_TTL_MS)),
  ));
  const inserted = await tx.insert(idempotencyKeys).values({ accountId, key, statusId })
    .onConflictDoNothing().returning({ key: idempotencyKeys.key });
  if (inserted.length) return null;
  const [row] = await tx.select().from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.accountId, accountId), eq(idempotencyKeys.key, key)));
  return row?.statusId ?? null;
}

/** The status an earlier request with this key created, if it is still fresh. */
export async function findIdempotentStatus(
  db: Executor,
  accountId: string,
  key: string,
): Promise<StatusRow | null> {
  const [row] = await db.select({ status: statuses }).from(idempotencyKeys)
    .innerJoin(statuses, eq(statuses.id, idempotencyKeys.statusId))
    .where(and(
      eq(idempotencyKeys.accountId, accountId),
      eq(idempotencyKeys.key, key),
      gte(idempotencyKeys.createdAt, new Date(Date.now() - IDEMPOTENCY_TTL_MS)),
    )).limit(1);
  return row?.status ?? null;
}
