/**
 * The audit log: every staff action writes one row, in the transaction of
 * the action itself, so an action and its record exist together or not at
 * all. The admin API, the admin pages and the admin command line all call
 * the same moderation commands, which call this.
 */
import { and, desc, eq, type SQL } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { adminActionLogs } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";

/** Who acted: a staff member's account id, or null for the command line. */
export type Actor = string | null;

export interface AdminAction {
  /** The staff account, or null when the machine's operator acted (admin command). */
  accountId: Actor;
  /** Mastodon's action name: suspend, unsuspend, silence, resolve, reopen, assigned_to_self, create, destroy, … */
  action: string;
  /** Mastodon's target type: Account, Report, DomainBlock, DomainAllow, EmailDomainBlock, … */
  targetType: string;
  targetId: string | null;
  /** How to name the target to a reader later (a handle, a domain, an address). */
  humanIdentifier?: string | null;
}

/** Records one staff action in `tx` (call it inside the action's transaction). */
export async function recordAdminAction(tx: Executor, action: AdminAction): Promise<void> {
  await tx.insert(adminActionLogs).values({
    id: newId(),
    accountId: action.accountId,
    action: action.action,
    targetType: action.targetType,
    targetId: action.targetId,
    humanIdentifier: action.humanIdentifier ?? null,
  });
}

/** The newest log rows, optionally for one target (tests, the admin pages). */
export async function listAdminActions(
  db: Executor,
  options: { targetType?: string; targetId?: string; limit?: number } = {},
): Promise<(typeof adminActionLogs.$inferSelect)[]> {
  const where: (SQL | undefined)[] = [
    options.targetType ? eq(adminActionLogs.targetType, options.targetType) : undefined,
    options.targetId ? eq(adminActionLogs.targetId, options.targetId) : undefined,
  ];
  return await db.select().from(adminActionLogs).where(and(...where))
    .orderBy(desc(adminActionLogs.id)).limit(Math.min(options.limit ?? 100, 1000));
}
