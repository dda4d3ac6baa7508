/**
 * Boosting, as Mastodon's ReblogService and the unreblog action: a boost is
 * a status row of its own with `reblog_of_id` set, fanned out to feeds like
 * any status. The API calls these for local users, the inbox for remote
 * Announces.
 *
 * Rules (Mastodon's StatusPolicy#reblog? and Status validations):
 * - a boost of a boost boosts the original;
 * - direct statuses cannot be boosted, private ones only by their author
 *   (403 "This action is not allowed");
 * - a private status's boost stays private; otherwise the boost takes the
 *   requested visibility (public, unlisted or private), or the account's
 *   default (a default of `direct` becomes `private`: a boost cannot be direct);
 * - boosting again returns the existing boost; concurrent boosts of one
 *   status by one account are serialized, so there is never a second one.
 *
 * Each command is one transaction (the boost row, counters, feeds, the
 * notification); the Announce or Undo(Announce) is recorded with it.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, statuses, users } from "../../db/schema/mod.ts";
import { fanOutStatus, removeFromFeeds } from "../timelines/fanout.ts";
import { notify } from "../notifications/notify.ts";
import { resolveSettings } from "../../model/user_settings.ts";
import { Problems } from "../../model/errors.ts";
import { isFollowerVisibility } from "../../model/visibility.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { recordJob } from "../outbox/jobs.ts";
import { NOTHING_MISSING } from "../outbox/status_links.ts";
import type { ReblogSnapshot } from "../outbox/interactions.ts";
import { decideInteraction, ForbiddenInteractionError, waitsForApproval } from "./policy.ts";
import { approvingIfHeld, openRequest, withdrawRequest } from "./requests.ts";
import {
  type AccountRow,
  actingAccount,
  lockFor,
  NotPermittedError,
  originalOf,
  type StatusRow,
  visibleStatus,
} from "./target.ts";
import { activityIds } from "../../model/uris.ts";

/** The refusal of a boost the status's interaction policy does not allow (GoToSocial's words). */
const FORBIDDEN = "You do not have permission to reblog this status";

/** Clock skew allowed to a remote boost's `published` (as for remote posts, federation/remote/statuses.ts). */
const FUTURE_TOLERANCE_MS = 60_000;

export interface ReblogOptions {
  /** Requested visibility; absent or empty means the account's default. */
  visibility?: string | null;
  /**
   * A remote Announce: its id and publication time; `unverified` when its
   * approval (between two other servers) could not be checked yet: held,
   * hidden, until the status_links job checks `claimUri`; `approvedByUri`
   * when it was checked and proven (stored with the boost's row).
   */
  remote?: {
    uri: string;
    published?: Date;
    unverified?: { claimUri: string | null };
    approvedByUri?: string;
  };
}

/** What {@link reblog} did. */
export interface ReblogResult {
  /** The boost (new, or the one that already existed). */
  boost: StatusRow;
  /** The boosted status. */
  original: StatusRow;
  created: boolean;
}

/**
 * `accountId` boosts `statusId`.
 *
 * @throws NotFoundError when the status is missing or hidden from the account
 * @throws NotPermittedError for direct statuses and others' private ones
 * @throws ValidationError for a visibility that is not public, unlisted or private
 */
export async function reblog(
  app: AppContext,
  accountId: string,
  statusId: string,
  options: ReblogOptions = {},
): Promise<ReblogResult> {
  const result = await app.database.db.transaction(async (tx) => {
    const account = await actingAccount(tx, accountId);
    const original = await approvingIfHeld(
      tx,
      app.config.origin,
      accountId,
      await originalOf(tx, accountId, await visibleStatus(tx, accountId, statusId)),
    );
    const own = original.accountId === accountId;
    if (original.visibility === "direct" || (original.visibility === "private" && !own)) {
      throw new NotPermittedError();
    }
    const decision = await decideInteraction(tx, "reblog", original, account);
    if (decision.permission === "forbidden") throw new ForbiddenInteractionError(FORBIDDEN);
    await lockFor(tx, `reblog:${accountId}:${original.id}`);
    const [existing] = await tx.select().from(statuses).where(and(
      eq(statuses.accountId, accountId),
      eq(statuses.reblogOfId, original.id),
      isNull(statuses.deletedAt),
    )).limit(1);
    if (existing) return { boost: existing, original, created: false };

    const visibility = original.visibility === "private"
      ? "private"
      : await boostVisibility(tx, account, options.visibility);
    const id = newId();
    const uri = options.remote?.uri ?? activityIds.boost(account.uri, id);
    // A remote boost keeps its own date, unless it claims to come from the
    // future (it would top "last posted" and date sorts): then it is now.
    const published = options.remote?.published;
    const now = published && published.getTime() <= Date.now() + FUTURE_TOLERANCE_MS
      ? published
      : new Date();
    const unverified = options.remote?.unverified;
    const held = unverified != null || waitsForApproval(decision, original);
    const [boost] = await tx.insert(statuses).values({
      id,
      uri,
      // Mastodon links a local boost to its activity; a remote one to its own URL.
      url: account.domain == null ? uri : null,
      accountId,
      local: account.domain == null,
      visibility,
      content: "",
      reblogOfId: original.id,
      createdAt: now,
      pendingApproval: held,
      approvedByUri: options.remote?.approvedByUri ?? null,
    }).returning();
    if (held) {
      // Counted, fanned out and announced when approved.
      await holdBoost(tx, boost, original, unverified);
      return { boost, original, created: true };
    }
    await countBoost(tx, boost);
    // The boost itself: the notification then goes away with it (unreblog).
    await notify(tx, {
      type: "reblog",
      accountId: original.accountId,
      fromAccountId: accountId,
      statusId: boost.id,
    });
    return { boost, original, created: true };
  });
  return result;
}

/**
 * A boost held for approval: asked for from the boosted status's author
 * (requests.ts), or, between two other servers whose proof could not be
 * fetched yet, checked later by the status_links job (nobody to ask).
 */
async function holdBoost(
  tx: Executor,
  boost: StatusRow,
  original: StatusRow,
  unverified?: { claimUri: string | null },
): Promise<void> {
  if (unverified) {
    await recordJob(tx, {
      job: "status_links",
      statusId: boost.id,
      missing: { ...NOTHING_MISSING, claimUri: unverified.claimUri, verify: true },
    });
    return;
  }
  await openRequest(tx, {
    type: "reblog",
    target: original,
    accountId: boost.accountId,
    statusId: boost.id,
    interactionUri: boost.uri,
  });
}

/**
 * What a boost adds once it stands (at once, or when its author approves
 * it): the counters, the feeds, and a local booster's Announce.
 */
async function countBoost(tx: Executor, boost: StatusRow): Promise<void> {
  await tx.update(statuses).set({ reblogsCount: sql`${statuses.reblogsCount} + 1` })
    .where(eq(statuses.id, boost.reblogOfId!));
  // Mastodon counts boosts among an account's posts.
  await tx.update(accounts).set({
    statusesCount: sql`${accounts.statusesCount} + 1`,
    lastStatusAt: boost.createdAt,
  }).where(eq(accounts.id, boost.accountId));
  await fanOutStatus(tx, boost);
  if (boost.local) await recordDelivery(tx, "statusReblogged", snapshotOf(boost));
}

/**
 * A held boost approved by the boosted status's author: it stands from now
 * on (actors/interactions/requests.ts); the author, who approved it, is not
 * notified of it again.
 */
export async function approveHeldBoost(
  tx: Executor,
  boostId: string,
  proof: string | null,
): Promise<void> {
  const [boost] = await tx.update(statuses).set({ pendingApproval: false, approvedByUri: proof })
    .where(and(eq(statuses.id, boostId), eq(statuses.pendingApproval, true))).returning();
  if (boost) await countBoost(tx, boost);
}

/**
 * A boost between two other servers, held until its approval was checked
 * (the fetch budget refused it on arrival): checked now, it stands; `proof`
 * is the verified authorization, null when none was needed after all.
 */
export async function approveVerifiedBoost(
  app: AppContext,
  boostId: string,
  proof: string | null,
): Promise<void> {
  await app.database.db.transaction((tx) => approveHeldBoost(tx, boostId, proof));
}

/**
 * `accountId` takes back its boost of `statusId` (not having boosted it is
 * no error). `statusId` may also name the boost itself. Returns the status
 * to show: the boosted one (as Mastodon, even if it became hidden since).
 *
 * @throws NotFoundError when there is no boost and the status is missing or hidden
 */
export async function unreblog(
  app: AppContext,
  accountId: string,
  statusId: string,
): Promise<StatusRow> {
  return await app.database.db.transaction(async (tx) => {
    const [named] = await tx.select().from(statuses).where(eq(statuses.id, statusId)).limit(1);
    const originalId = named?.reblogOfId != null && named.accountId === accountId
      ? named.reblogOfId
      : statusId;
    await lockFor(tx, `reblog:${accountId}:${originalId}`);
    const [boost] = await tx.select().from(statuses).where(and(
      eq(statuses.accountId, accountId),
      eq(statuses.reblogOfId, originalId),
      isNull(statuses.deletedAt),
    )).limit(1);
    if (!boost) return await visibleStatus(tx, accountId, statusId);
    if (boost.pendingApproval) {
      // Never counted nor sent: its request and the row go.
      await withdrawRequest(tx, { statusId: boost.id });
      await tx.delete(statuses).where(eq(statuses.id, boost.id));
    } else {
      await removeBoost(tx, boost);
      if (boost.local) await recordDelivery(tx, "statusUnreblogged", snapshotOf(boost));
    }
    const [status] = await tx.select().from(statuses).where(eq(statuses.id, originalId));
    return status;
  });
}

/**
 * Removes a boost inside a transaction: out of every feed, the row itself
 * (its notification and feed entries go with it), and the counters it added.
 * Also used when a remote Undo(Announce) arrives.
 */
export async function removeBoost(tx: Executor, boost: StatusRow): Promise<void> {
  // The feeds of the booster and its followers. home_feed has no foreign
  // keys (db/schema/statuses.ts); an entry in a feed whose owner stopped
  // following without the usual unmerge shows nothing once the row is gone
  // (readers join statuses), and is trimmed with the feed.
  await removeFromFeeds(tx, boost.id);
  await tx.delete(statuses).where(eq(statuses.id, boost.id));
  if (boost.reblogOfId) {
    await tx.update(statuses)
      .set({ reblogsCount: sql`GREATEST(${statuses.reblogsCount} - 1, 0)` })
      .where(eq(statuses.id, boost.reblogOfId));
  }
  await tx.update(accounts)
    .set({ statusesCount: sql`GREATEST(${accounts.statusesCount} - 1, 0)` })
    .where(eq(accounts.id, boost.accountId));
}

/** The boost's visibility: the requested one, else the account's default. */
async function boostVisibility(
  tx: Executor,
  account: AccountRow,
  requested: string | null | undefined,
): Promise<string> {
  if (requested != null && requested !== "") {
    if (isFollowerVisibility(requested)) return requested;
    const problems = new Problems();
    problems.add(
      "visibility",
      requested === "direct" ? "ERR_RESERVED" : "ERR_INCLUSION",
      requested === "direct" ? "is reserved" : "is not included in the list",
    );
    problems.throwIfAny();
  }
  if (account.domain != null) return "public";
  const [user] = await tx.select({ settings: users.settings }).from(users)
    .where(eq(users.accountId, account.id)).limit(1);
  const preferred = resolveSettings(user?.settings, account).defaultPrivacy;
  return preferred === "direct" ? "private" : preferred;
}

function snapshotOf(boost: StatusRow): ReblogSnapshot {
  return {
    id: boost.id,
    uri: boost.uri,
    accountId: boost.accountId,
    reblogOfId: boost.reblogOfId!,
    visibility: boost.visibility,
    createdAt: boost.createdAt.toISOString(),
    approvedByUri: boost.approvedByUri,
  };
}
