/**
 * Row-level pieces shared by the relationship commands (follows, blocks,
 * domain blocks, account deletion): loading the accounts involved, writing
 * and removing follows with their counters, and the snapshots the commands
 * record for the outbox (actors/outbox/deliveries.ts).
 *
 * Counters move only by rows actually inserted or deleted (the unique pair
 * indexes decide), so concurrent commands never double-count.
 */
import { and, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { isId, newId } from "../../db/ids.ts";
import {
  accountDomainBlocks,
  accounts,
  blocks,
  followRequests,
  follows,
} from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";
import type { FollowSnapshot } from "../outbox/relationships.ts";

/** An accounts row. */
export type AccountRow = typeof accounts.$inferSelect;

/** Mastodon's NotPermittedError: the action is refused (403 "This action is not allowed"). */
export class NotPermittedError extends Error {
  constructor(message = "This action is not allowed") {
    super(message);
  }
}

/** Options of a follow, as the API names them. */
export interface FollowOptions {
  /** Show the target's boosts in the home timeline (default true). */
  reblogs?: boolean;
  /** Notify when the target posts (default false). */
  notify?: boolean;
  /** Only these languages in the home timeline; null or empty: all. */
  languages?: string[] | null;
  /**
   * Follow a locked local target at once, without a request: only for
   * followers redirected by a move to a local account (actors/accounts/moves.ts), as
   * Mastodon's `bypass_locked`. Never set from API input.
   */
  bypassLocked?: boolean;
}

/** An account by id, or NotFoundError; deleted accounts count as missing. */
export async function requireAccount(db: Executor, id: string): Promise<AccountRow> {
  if (!isId(id)) throw new NotFoundError();
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id)).limit(1);
  if (!row || row.deletedAt) throw new NotFoundError();
  return row;
}

/** The acting account and its target, both live; 404 for a bad target id. */
export async function requirePair(
  db: Executor,
  accountId: string,
  targetId: string,
): Promise<{ account: AccountRow; target: AccountRow }> {
  const ids = [accountId, targetId].filter(isId);
  if (ids.length < 2) throw new NotFoundError();
  const rows = await db.select().from(accounts).where(inArray(accounts.id, ids));
  const account = rows.find((r) => r.id === accountId);
  const target = rows.find((r) => r.id === targetId);
  if (!account || account.deletedAt || !target || target.deletedAt) throw new NotFoundError();
  return { account, target };
}

/** Whether `a` blocks `b` or `b` blocks `a`, or `a` blocks `b`'s domain. */
export async function blockedEitherWay(db: Executor, a: AccountRow, b: AccountRow) {
  const [row] = await db.select({ id: blocks.id }).from(blocks).where(or(
    and(eq(blocks.accountId, a.id), eq(blocks.targetAccountId, b.id)),
    and(eq(blocks.accountId, b.id), eq(blocks.targetAccountId, a.id)),
  )).limit(1);
  if (row) return true;
  return await domainBlocked(db, a, b) || await domainBlocked(db, b, a);
}

/** Whether `account` has blocked the domain of `other` (only local accounts keep such blocks). */
export async function domainBlocked(db: Executor, account: AccountRow, other: AccountRow) {
  if (account.domain != null || other.domain == null) return false;
  const [row] = await db.select({ id: accountDomainBlocks.id }).from(accountDomainBlocks)
    .where(and(
      eq(accountDomainBlocks.accountId, account.id),
      eq(accountDomainBlocks.domain, other.domain.toLowerCase()),
    )).limit(1);
  return row != null;
}

/** Applies counter changes for removed follows: each row lowers two counters by one. */
async function lowerCounters(
  db: Executor,
  removed: { accountId: string; targetAccountId: string }[],
) {
  const following = tally(removed.map((r) => r.accountId));
  const followers = tally(removed.map((r) => r.targetAccountId));
  for (const [n, ids] of following) {
    await db.update(accounts)
      .set({ followingCount: sql`greatest(${accounts.followingCount} - ${n}, 0)` })
      .where(inArray(accounts.id, ids));
  }
  for (const [n, ids] of followers) {
    await db.update(accounts)
      .set({ followersCount: sql`greatest(${accounts.followersCount} - ${n}, 0)` })
      .where(inArray(accounts.id, ids));
  }
}

/** Groups ids by how often they occur: count → ids (one UPDATE per distinct count). */
function tally(ids: string[]): Map<number, string[]> {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const out = new Map<number, string[]>();
  for (const [id, n] of counts) (out.get(n) ?? out.set(n, []).get(n)!).push(id);
  return out;
}

/**
 * Makes `accountId` follow `targetId` with these options and URI. Returns
 * true when a new follows row was written (counters raised), false when one
 * existed (its options and URI are updated instead).
 */
export async function writeFollow(
  db: Executor,
  accountId: string,
  targetId: string,
  options: FollowOptions,
  uri: string | null,
): Promise<{ created: boolean; row: typeof follows.$inferSelect }> {
  const values = {
    showReblogs: options.reblogs ?? true,
    notify: options.notify ?? false,
    languages: options.languages?.length ? options.languages : null,
  };
  const [inserted] = await db.insert(follows).values({
    id: newId(),
    accountId,
    targetAccountId: targetId,
    uri,
    ...values,
  }).onConflictDoNothing().returning();
  if (inserted) {
    await db.update(accounts).set({ followingCount: sql`${accounts.followingCount} + 1` })
      .where(eq(accounts.id, accountId));
    await db.update(accounts).set({ followersCount: sql`${accounts.followersCount} + 1` })
      .where(eq(accounts.id, targetId));
    return { created: true, row: inserted };
  }
  const changes: Partial<typeof follows.$inferInsert> = {};
  if (options.reblogs !== undefined) changes.showReblogs = values.showReblogs;
  if (options.notify !== undefined) changes.notify = values.notify;
  if (options.languages !== undefined) changes.languages = values.languages;
  if (uri) changes.uri = uri;
  const where = and(eq(follows.accountId, accountId), eq(follows.targetAccountId, targetId));
  const [row] = Object.keys(changes).length
    ? await db.update(follows).set(changes).where(where).returning()
    : await db.select().from(follows).where(where);
  return { created: false, row };
}

/** Removes follows matching `where`, lowers the counters, returns what was removed. */
export async function removeFollows(
  db: Executor,
  where: SQL | undefined,
): Promise<FollowSnapshot[]> {
  const removed = await db.delete(follows).where(where).returning({
    id: follows.id,
    uri: follows.uri,
    accountId: follows.accountId,
    targetAccountId: follows.targetAccountId,
  });
  if (removed.length) await lowerCounters(db, removed);
  return removed;
}

/** Removes follow requests matching `where`, returns what was removed. */
export async function removeRequests(
  db: Executor,
  where: SQL | undefined,
): Promise<FollowSnapshot[]> {
  return await db.delete(followRequests).where(where).returning({
    id: followRequests.id,
    uri: followRequests.uri,
    accountId: followRequests.accountId,
    targetAccountId: followRequests.targetAccountId,
  });
}

/** Condition on a (account_id, target_account_id) table: from `a` to `b`. */
export function pairOf(
  table: typeof follows | typeof followRequests,
  a: string,
  b: string,
): SQL {
  return and(eq(table.accountId, a), eq(table.targetAccountId, b))!;
}

/** Rows of a pair table in either direction between `a` and `b`. */
export function eitherWay(table: typeof follows | typeof followRequests, a: string, b: string) {
  return or(pairOf(table, a, b), pairOf(table, b, a));
}

/** Whether an account is local. */
export function isLocal(account: Pick<AccountRow, "domain">): boolean {
  return account.domain == null;
}

/**
 * Ends every follow to and from `accountId` (account deletion, a suspension's
 * purge), moving each other side's counter by the rows really deleted (a pair
 * is unique, so each other account appears once per direction). Returns how
 * many follows ended.
 */
export async function removeAllFollows(tx: Executor, accountId: string): Promise<number> {
  const outgoing = await tx.delete(follows).where(eq(follows.accountId, accountId))
    .returning({ other: follows.targetAccountId });
  const incoming = await tx.delete(follows).where(eq(follows.targetAccountId, accountId))
    .returning({ other: follows.accountId });
  if (outgoing.length) {
    await tx.update(accounts)
      .set({ followersCount: sql`greatest(${accounts.followersCount} - 1, 0)` })
      .where(inArray(accounts.id, outgoing.map((r) => r.other)));
  }
  if (incoming.length) {
    await tx.update(accounts)
      .set({ followingCount: sql`greatest(${accounts.followingCount} - 1, 0)` })
      .where(inArray(accounts.id, incoming.map((r) => r.other)));
  }
  return outgoing.length + incoming.length;
}
