/**
 * Scheduled statuses after they were scheduled (POST /api/v1/statuses with
 * `scheduled_at` belongs to actors/statuses/schedule.ts): reading,
 * rescheduling, cancelling, the account limits, and publishing on time.
 *
 * Publishing: the worker calls {@link publishDueScheduledStatuses} every few
 * seconds. Each due row is claimed with FOR UPDATE SKIP LOCKED and, in that
 * same transaction, deleted and turned into a status by the statuses core's
 * createStatus (the code path of POST /api/v1/statuses, reserved media
 * included). createStatus opens its own transaction on `ctx.database.db`;
 * handing it a context whose database is our transaction makes that a
 * savepoint inside ours, so the delete and the post commit together: a crash
 * at any point either leaves the row (published on the next run) or the
 * status, never both, never neither. The deliveries createStatus records
 * (actors/outbox/deliveries.ts) are in that transaction too, so no peer hears of a
 * status that could still roll back, and none is lost.
 *
 * A scheduled status that can no longer be posted (its author was deleted,
 * its media or quote is gone, the text breaks a new limit) is dropped, as
 * Mastodon's PublishScheduledStatusWorker drops it.
 *
 * Limits (Mastodon's ScheduledStatus validations): at least five minutes
 * ahead, at most 300 scheduled per account and 25 per UTC day.
 */
import { and, eq, lte, notInArray } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { Database, Db, Executor } from "../../db/connection.ts";
import { mediaAttachments, scheduledStatuses } from "../../db/schema/mod.ts";
import { createStatus } from "./create.ts";
import { StatusError } from "./errors.ts";
import { inputFromScheduledParams } from "./schedule.ts";
import { checkScheduleLimits } from "./schedule_limits.ts";

export {
  checkScheduleLimits,
  SCHEDULED_DAILY_LIMIT,
  SCHEDULED_TOTAL_LIMIT,
} from "./schedule_limits.ts";
import { NotFoundError } from "../../model/errors.ts";

const logger = getLogger(["rookery", "scheduled_statuses"]);

export type ScheduledStatusRow = typeof scheduledStatuses.$inferSelect;

/** One of the account's scheduled statuses; someone else's is not found. */
export async function findScheduledStatus(
  db: Executor,
  accountId: string,
  id: string,
): Promise<ScheduledStatusRow> {
  const [row] = await db.select().from(scheduledStatuses)
    .where(and(eq(scheduledStatuses.id, id), eq(scheduledStatuses.accountId, accountId)));
  if (!row) throw new NotFoundError();
  return row;
}

/** Moves a scheduled status to a new time (PUT /api/v1/scheduled_statuses/:id). */
export async function rescheduleStatus(
  db: Db,
  accountId: string,
  id: string,
  scheduledAt: Date,
): Promise<ScheduledStatusRow> {
  return await db.transaction(async (tx) => {
    const [row] = await tx.select().from(scheduledStatuses)
      .where(and(eq(scheduledStatuses.id, id), eq(scheduledStatuses.accountId, accountId)))
      .for("update");
    if (!row) throw new NotFoundError();
    await checkScheduleLimits(tx, accountId, scheduledAt, { excludeId: id });
    const [updated] = await tx.update(scheduledStatuses).set({ scheduledAt })
      .where(eq(scheduledStatuses.id, id)).returning();
    return updated;
  });
}

/** Cancels a scheduled status; its reserved media become free to use again. */
export async function cancelScheduledStatus(db: Db, accountId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const deleted = await tx.delete(scheduledStatuses)
      .where(and(eq(scheduledStatuses.id, id), eq(scheduledStatuses.accountId, accountId)))
      .returning({ id: scheduledStatuses.id });
    if (deleted.length === 0) throw new NotFoundError();
    await tx.update(mediaAttachments).set({ scheduledStatusId: null })
      .where(eq(mediaAttachments.scheduledStatusId, id));
  });
}

/**
 * The context createStatus runs in when publishing: its database is our
 * transaction (so its own transaction becomes a savepoint in ours).
 */
function transactionalContext(ctx: AppContext, tx: Executor): AppContext {
  const database: Database = {
    ...ctx.database,
    db: tx as unknown as Db,
    rows: (query, executor = tx) => ctx.database.rows(query, executor),
  };
  return { ...ctx, database };
}

type Outcome = "published" | "dropped" | "skipped" | "none";

/** Publishes the earliest due scheduled status not in `skip`. */
async function publishOne(
  ctx: AppContext,
  now: Date,
  skip: Set<string>,
): Promise<Outcome> {
  let claimed: ScheduledStatusRow | null = null;
  try {
    const published = await ctx.database.db.transaction(async (tx) => {
      const [row] = await tx.select().from(scheduledStatuses)
        .where(and(
          lte(scheduledStatuses.scheduledAt, now),
          skip.size ? notInArray(scheduledStatuses.id, [...skip]) : undefined,
        ))
        .orderBy(scheduledStatuses.scheduledAt, scheduledStatuses.id).limit(1)
        .for("update", { skipLocked: true });
      if (!row) return false;
      claimed = row;
      await createStatus(transactionalContext(ctx, tx), inputFromScheduledParams(row));
      await tx.delete(scheduledStatuses).where(eq(scheduledStatuses.id, row.id));
      return true;
    });
    if (!published) return "none";
  } catch (error) {
    const row = claimed as ScheduledStatusRow | null;
    if (!row) throw error;
    if (!(error instanceof StatusError)) {
      // Possibly transient (a lost connection): leave it for the next run.
      skip.add(row.id);
      logger.warn("Could not publish scheduled status {id}: {error}", { id: row.id, error });
      return "skipped";
    }
    logger.info("Dropping scheduled status {id}, which can no longer be posted: {error}", {
      id: row.id,
      error: error.message,
    });
    await cancelScheduledStatus(ctx.database.db, row.accountId, row.id).catch(() => {});
    return "dropped";
  }
  return "published";
}

/** Publishes every scheduled status due at `now`; returns how many were published. */
export async function publishDueScheduledStatuses(
  ctx: AppContext,
  now = new Date(),
): Promise<number> {
  const skip = new Set<string>();
  let published = 0;
  while (true) {
    const outcome = await publishOne(ctx, now, skip);
    if (outcome === "none") return published;
    if (outcome === "published") published++;
  }
}
