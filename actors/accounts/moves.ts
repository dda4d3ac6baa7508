/**
 * Accounts that move, as Mastodon's MoveService, ActivityPub::Activity::Move,
 * MoveWorker and UnfollowFollowWorker do it:
 *
 * - a local account lists aliases (`alsoKnownAs`), the accounts that may
 *   move *to* it ({@link addAlias}, {@link removeAlias});
 * - a local account moves away ({@link moveLocalAccount}) to a target that
 *   lists it (the caller fetched the target fresh): `moved` shows, a Move
 *   goes to its followers, posting is refused (actors/statuses/create.ts);
 * - a remote account's Move, confirmed by its target's `alsoKnownAs`
 *   (federation/inbox/move.ts), is recorded ({@link recordRemoteMove});
 * - either way the local followers of the origin are redirected to the
 *   target in batches of the job queue ({@link redirectFollowerBatch}):
 *   each follows the target with the options of its follow (a request when
 *   the target is locked), unfollows the origin, and gets a `move`
 *   notification; local accounts that blocked or muted the origin block or
 *   mute the target too, unless they follow it ({@link carryBlocksAndMutesOver}).
 *
 * An `account_moves` row per origin and target makes a repeated Move (or the
 * actor Update that announced the same `movedTo` first) do nothing new. A
 * local account moves at most once in {@link MOVE_COOLDOWN_MS} (Mastodon's
 * AccountMigration cooldown), and may cancel the redirect
 * ({@link cancelRedirect}) without taking its followers back.
 */
import { and, asc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accountMoves, accounts, blocks, follows, mutes } from "../../db/schema/mod.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { isLocal, NotPermittedError, requireAccount } from "../relationships/follow_rows.ts";
import { follow, SelfFollowError, unfollow } from "../relationships/follows.ts";
import { notify } from "../notifications/notify.ts";
import { block } from "../relationships/blocks.ts";
import { mute, muteActive } from "../relationships/mutes.ts";
import { recordJob } from "../outbox/jobs.ts";

const logger = getLogger(["rookery", "actors", "moves"]);

/** How many aliases a local account may list. */
export const MAX_ALIASES = 20;

/** How long after a move a local account may not move again (Mastodon: 30 days). */
export const MOVE_COOLDOWN_MS = 30 * 24 * 60 * 60 * 1000;

/** How many followers one job redirects before it queues the next. */
export const REDIRECT_BATCH = 50;

/** An accounts row. */
type AccountRow = typeof accounts.$inferSelect;

function invalid(field: string, description: string): never {
  const problems = new Problems();
  problems.add(field, "ERR_INVALID", description);
  problems.throwIfAny();
  throw new Error("unreachable");
}

/** A live local account by id, or NotFoundError. */
async function requireLocal(db: Executor, accountId: string): Promise<AccountRow> {
  const account = await requireAccount(db, accountId);
  if (!isLocal(account)) throw new NotFoundError();
  return account;
}

/**
 * Adds `alias` (an account row, found or fetched by the caller) to the
 * aliases of the local account `accountId`. Adding a listed alias again
 * changes nothing. Returns the aliases.
 *
 * @throws ValidationError for the account itself or past {@link MAX_ALIASES}
 */
export async function addAlias(
  app: AppContext,
  accountId: string,
  alias: Pick<AccountRow, "id" | "uri">,
): Promise<string[]> {
  return await app.database.db.transaction(async (tx) => {
    const [account] = await tx.select().from(accounts)
      .where(and(eq(accounts.id, accountId), isNull(accounts.domain))).for("update");
    if (!account || account.deletedAt) throw new NotFoundError();
    if (alias.id === account.id) invalid("acct", "cannot be your own account");
    if (account.alsoKnownAs.includes(alias.uri)) return account.alsoKnownAs;
    if (account.alsoKnownAs.length >= MAX_ALIASES) {
      invalid("acct", `cannot be added: at most ${MAX_ALIASES} aliases`);
    }
    const aliases = [...account.alsoKnownAs, alias.uri];
    await tx.update(accounts).set({ alsoKnownAs: aliases, updatedAt: new Date() })
      .where(eq(accounts.id, account.id));
    return aliases;
  });
}

/**
 * Removes `aliasUri` from the aliases of the local account `accountId`.
 * Returns whether it was listed.
 */
export async function removeAlias(
  app: AppContext,
  accountId: string,
  aliasUri: string,
): Promise<boolean> {
  return await app.database.db.transaction(async (tx) => {
    const [account] = await tx.select().from(accounts)
      .where(and(eq(accounts.id, accountId), isNull(accounts.domain))).for("update");
    if (!account || account.deletedAt) throw new NotFoundError();
    if (!account.alsoKnownAs.includes(aliasUri)) return false;
    await tx.update(accounts).set({
      alsoKnownAs: account.alsoKnownAs.filter((uri) => uri !== aliasUri),
      updatedAt: new Date(),
    }).where(eq(accounts.id, account.id));
    return true;
  });
}

/** How a local move ended. */
export type LocalMoveOutcome = "moved" | "already";

/**
 * The local account `accountId` moves to `target`, whose stored row the
 * caller has just refreshed from a fresh fetch (so its aliases are current).
 * In one transaction: `moved_to` is set, the move is recorded, an Update of
 * the actor (now with `movedTo`) and a Move go to its followers' servers, and
 * its local followers are queued for redirection. Moving again to the same
 * target does nothing new ("already").
 *
 * @throws ValidationError when the target is the account itself, has moved,
 *   or does not list the account in its aliases, or when the account moved
 *   less than {@link MOVE_COOLDOWN_MS} ago
 */
export async function moveLocalAccount(
  app: AppContext,
  accountId: string,
  targetId: string,
  now = new Date(),
): Promise<LocalMoveOutcome> {
  return await app.database.db.transaction(async (tx) => {
    // Two moves at once wait for each other: the second sees the first's cooldown.
    await tx.execute(sql`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`);
    const account = await requireLocal(tx, accountId);
    const target = await requireAccount(tx, targetId);
    if (target.id === account.id) invalid("acct", "cannot be your own account");
    if (target.suspendedAt) throw new NotFoundError();
    if (target.movedToAccountId) invalid("acct", "has moved itself");
    if (!target.alsoKnownAs.includes(account.uri)) {
      invalid("acct", "must list this account as an alias (alsoKnownAs) first");
    }
    if (account.movedToAccountId === target.id) return "already" as const;
    const [recent] = await tx.select({ at: accountMoves.createdAt }).from(accountMoves).where(and(
      eq(accountMoves.accountId, account.id),
      gt(accountMoves.createdAt, new Date(now.getTime() - MOVE_COOLDOWN_MS)),
    )).limit(1);
    if (recent) {
      const until = new Date(recent.at.getTime() + MOVE_COOLDOWN_MS).toISOString().slice(0, 10);
      invalid(
        "acct",
        `cannot be moved to: this account moved less than 30 days ago (next move after ${until})`,
      );
    }
    // A move to the same target as one long ago (its redirect since cancelled)
    // is a new move: followers are told again.
    await tx.delete(accountMoves).where(
      and(eq(accountMoves.accountId, account.id), eq(accountMoves.targetAccountId, target.id)),
    );
    await recordMove(tx, account.id, target.id);
    // Update first (peers store `movedTo`), then the Move itself, as Mastodon sends them.
    await recordDelivery(tx, "accountUpdated", account.id, newId());
    await recordDelivery(tx, "accountMoved", account.id, target.id, newId());
    return "moved" as const;
  });
}

/**
 * Mastodon's "Cancel redirect": the local account `accountId` no longer
 * shows `moved` and may post again; an Update of the actor (without
 * `movedTo`) goes to its followers' servers. Followers already redirected
 * stay with the new account, and the move still counts for the cooldown.
 * Returns false when the account was not redirecting.
 */
export async function cancelRedirect(app: AppContext, accountId: string): Promise<boolean> {
  return await app.database.db.transaction(async (tx) => {
    const [account] = await tx.select().from(accounts)
      .where(and(eq(accounts.id, accountId), isNull(accounts.domain))).for("update");
    if (!account || account.deletedAt) throw new NotFoundError();
    if (!account.movedToAccountId) return false;
    await tx.update(accounts).set({ movedToAccountId: null, updatedAt: new Date() })
      .where(eq(accounts.id, account.id));
    await recordDelivery(tx, "accountUpdated", account.id, newId());
    return true;
  });
}

/** An alias of a local account: its actor IRI, and its handle when the account is stored. */
export interface AliasEntry {
  uri: string;
  acct: string | null;
}

/** The aliases of the local account `accountId`, with their handles where known. */
export async function listAliases(db: Executor, accountId: string): Promise<AliasEntry[]> {
  const [account] = await db.select({ aliases: accounts.alsoKnownAs }).from(accounts)
    .where(and(eq(accounts.id, accountId), isNull(accounts.domain))).limit(1);
  if (!account) throw new NotFoundError();
  if (!account.aliases.length) return [];
  const known = await db.select({
    uri: accounts.uri,
    username: accounts.username,
    domain: accounts.domain,
  }).from(accounts).where(inArray(accounts.uri, account.aliases));
  const handles = new Map(
    known.map((k) => [k.uri, k.domain ? `${k.username}@${k.domain}` : k.username]),
  );
  return account.aliases.map((uri) => ({ uri, acct: handles.get(uri) ?? null }));
}

/** What the migration page shows: the account's own IRI and where it redirects, if anywhere. */
export interface MigrationState {
  uri: string;
  redirect: { id: string; acct: string; url: string } | null;
}

/** The {@link MigrationState} of the local account `accountId`. */
export async function migrationState(db: Executor, accountId: string): Promise<MigrationState> {
  const [account] = await db.select({ uri: accounts.uri, movedTo: accounts.movedToAccountId })
    .from(accounts).where(and(eq(accounts.id, accountId), isNull(accounts.domain))).limit(1);
  if (!account) throw new NotFoundError();
  if (!account.movedTo) return { uri: account.uri, redirect: null };
  const [target] = await db.select().from(accounts).where(eq(accounts.id, account.movedTo));
  if (!target) return { uri: account.uri, redirect: null };
  return {
    uri: account.uri,
    redirect: {
      id: target.id,
      acct: target.domain ? `${target.username}@${target.domain}` : target.username,
      url: target.url ?? target.uri,
    },
  };
}

/**
 * A remote account's Move to `targetId`, already confirmed by the target's
 * aliases (federation/inbox/move.ts): `moved_to` is set and the local
 * followers are queued for redirection. Returns false when this move was
 * recorded before (nothing new happens).
 */
export async function recordRemoteMove(
  app: AppContext,
  originId: string,
  targetId: string,
): Promise<boolean> {
  return await app.database.db.transaction(async (tx) => {
    const origin = await requireAccount(tx, originId);
    if (isLocal(origin)) throw new NotFoundError();
    await requireAccount(tx, targetId);
    return await recordMove(tx, originId, targetId);
  });
}

/**
 * Records the move (unique per pair), sets `moved_to` and asks, through an
 * intent, for the local followers' redirection. False when already recorded.
 */
async function recordMove(tx: Executor, originId: string, targetId: string): Promise<boolean> {
  const [recorded] = await tx.insert(accountMoves)
    .values({ id: newId(), accountId: originId, targetAccountId: targetId })
    .onConflictDoNothing().returning({ id: accountMoves.id });
  await tx.update(accounts).set({ movedToAccountId: targetId, updatedAt: new Date() })
    .where(eq(accounts.id, originId));
  if (!recorded) return false;
  await recordJob(tx, { job: "move_followers", originId, targetId, afterId: null });
  return true;
}

/**
 * Redirects up to `limit` local followers of `originId` whose follow's id is
 * after `afterId` to `targetId`, one follower at a time (each its own
 * commands, as Mastodon's UnfollowFollowWorker). Returns the last follow id
 * handled, or null when there were no more (the caller queues the next
 * batch with it).
 */
export async function redirectFollowerBatch(
  app: AppContext,
  originId: string,
  targetId: string,
  afterId: string | null,
  limit = REDIRECT_BATCH,
): Promise<string | null> {
  const db = app.database.db;
  const batch = await db.select({ id: follows.id, followerId: follows.accountId })
    .from(follows).innerJoin(accounts, eq(accounts.id, follows.accountId))
    .where(and(
      eq(follows.targetAccountId, originId),
      isNull(accounts.domain),
      isNull(accounts.deletedAt),
      afterId ? gt(follows.id, afterId) : undefined,
    ))
    .orderBy(asc(follows.id)).limit(limit);
  for (const row of batch) await redirectFollower(app, row.followerId, originId, targetId);
  return batch.length < limit ? null : batch[batch.length - 1].id;
}

/**
 * One local follower of `originId` follows `targetId` with the options of
 * its follow, then unfollows the origin and is told (`move`). A follow the
 * target refuses (a block either way) leaves the follower where it was.
 */
export async function redirectFollower(
  app: AppContext,
  followerId: string,
  originId: string,
  targetId: string,
): Promise<void> {
  const db = app.database.db;
  const [current] = await db.select().from(follows)
    .where(and(eq(follows.accountId, followerId), eq(follows.targetAccountId, originId)));
  if (!current) return;
  if (followerId !== targetId) {
    try {
      await follow(app, followerId, targetId, {
        reblogs: current.showReblogs,
        notify: current.notify,
        languages: current.languages,
        // The owner of a local target asked for this move (Mastodon's bypass_locked).
        bypassLocked: true,
      });
    } catch (error) {
      if (
        error instanceof NotPermittedError || error instanceof NotFoundError ||
        error instanceof SelfFollowError
      ) {
        logger.info("Follower {follower} of {origin} not redirected to {target}: {reason}", {
          follower: followerId,
          origin: originId,
          target: targetId,
          reason: error.message,
        });
        return;
      }
      throw error;
    }
  }
  await unfollow(app, followerId, originId);
  await db.transaction(async (tx) => {
    await notify(tx, { type: "move", accountId: followerId, fromAccountId: originId });
  });
}

/** How many carried-over blocks (and mutes) one move makes at most. */
const MAX_CARRIED = 1_000;

/**
 * Local accounts that block (or mute) `originId` block (or mute, with the
 * same notifications choice) `targetId` too, unless they already do or
 * follow it: Mastodon's MoveWorker carries them over so a move is no way
 * around a block. Returns how many were carried over.
 */
export async function carryBlocksAndMutesOver(
  app: AppContext,
  originId: string,
  targetId: string,
): Promise<number> {
  const db = app.database.db;
  const localAndFree = (column: typeof blocks.accountId | typeof mutes.accountId) =>
    sql`EXISTS (SELECT 1 FROM accounts l WHERE l.id = ${column} AND l.domain IS NULL
      AND l.deleted_at IS NULL)
      AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = ${column}
        AND f.target_account_id = ${targetId})`;
  const blockers = await db.select({ accountId: blocks.accountId }).from(blocks).where(and(
    eq(blocks.targetAccountId, originId),
    localAndFree(blocks.accountId),
    sql`NOT EXISTS (SELECT 1 FROM blocks b2 WHERE b2.account_id = ${blocks.accountId}
      AND b2.target_account_id = ${targetId})`,
  )).limit(MAX_CARRIED);
  const muters = await db.select({
    accountId: mutes.accountId,
    hideNotifications: mutes.hideNotifications,
  }).from(mutes).where(and(
    eq(mutes.targetAccountId, originId),
    muteActive(),
    localAndFree(mutes.accountId),
    sql`NOT EXISTS (SELECT 1 FROM mutes m2 WHERE m2.account_id = ${mutes.accountId}
      AND m2.target_account_id = ${targetId})`,
  )).limit(MAX_CARRIED);
  for (const { accountId } of blockers) {
    if (accountId !== targetId) await block(app, accountId, targetId);
  }
  for (const { accountId, hideNotifications } of muters) {
    if (accountId !== targetId) {
      await mute(app, accountId, targetId, { notifications: hideNotifications });
    }
  }
  return blockers.length + muters.length;
}
