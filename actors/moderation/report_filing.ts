/**
 * Reports: one account's complaint about another, for the moderators
 * (Mastodon's ReportService). Two doors lead here and share the rules below:
 *
 * - {@link fileReport}: a local user through `POST /api/v1/reports`. The
 *   target must exist and not be suspended (404); every attached status must
 *   be the target's and visible to the reporter (404 otherwise, as Mastodon's
 *   `find` raises); the comment is at most 1,000 characters; `rule_ids`
 *   force the category to `violation`, which needs rules of this instance;
 *   `collection_ids` must be the target's collections (422 otherwise);
 *   `forward` on a remote target records a Flag delivery (actors/outbox/reports.ts).
 * - {@link receiveFlag}: a Flag from another server naming local accounts,
 *   or remote ones whose reported statuses reply to ours
 *   (federation/inbox/reports.ts). One report per such account, keyed by
 *   the activity id, so a replayed Flag is stored once.
 *
 * Either way the report, its staff notifications (`admin.report`, unless the
 * target already has an unresolved report, as Mastodon's
 * `unresolved_siblings?`) and its delivery intent share one transaction.
 */
import { and, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { isId, newId } from "../../db/ids.ts";
import { accounts, collections, instanceRules, reports, statuses } from "../../db/schema/mod.ts";
import { visibleStatusFilter } from "../../db/queries/visibility.ts";
import { NotFoundError, Problems, ValidationError } from "../../model/errors.ts";
import { normalizeDomain } from "../relationships/domain_blocks.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { notifyStaffOfReport } from "../notifications/staff.ts";

/** Mastodon's report categories. */
export const REPORT_CATEGORIES = ["spam", "legal", "violation", "other"] as const;
export type ReportCategory = (typeof REPORT_CATEGORIES)[number];

/** Mastodon's limit on a local report's comment. */
export const COMMENT_MAX = 1_000;
/**
 * Remote comments are not held to 1,000 (Mastodon validates only local
 * ones), but a bound keeps a hostile server from filling the table.
 */
export const REMOTE_COMMENT_MAX = 5_000;
/** At most this many statuses, rules and domains per report (more is a 422). */
export const REPORT_LIST_MAX = 100;

export type ReportRow = typeof reports.$inferSelect;

/** What a reporter sends (already typed by the route). */
export interface ReportInput {
  /** The account reported. */
  targetAccountId: string;
  statusIds?: readonly string[];
  comment?: string;
  forward?: boolean;
  /** Omitted: the target's own domain (Mastodon's default). */
  forwardToDomains?: readonly string[];
  category?: string;
  ruleIds?: readonly string[];
  /** Collections of the target (Mastodon 4.6). */
  collectionIds?: readonly string[];
}

type AccountRow = typeof accounts.$inferSelect;

/** A live, unsuspended account by id, or NotFoundError. */
async function requireTarget(db: Executor, id: string): Promise<AccountRow> {
  if (!isId(id)) throw new NotFoundError();
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id)).limit(1);
  if (!row || row.deletedAt || row.suspendedAt) throw new NotFoundError();
  return row;
}

function unique(list: readonly string[] | undefined): string[] {
  return [...new Set(list ?? [])];
}

/** The category a report gets: `violation` whenever rules are cited. */
function categoryOf(input: ReportInput, problems: Problems): ReportCategory {
  if ((input.ruleIds ?? []).length > 0) return "violation";
  const category = input.category?.trim() || "other";
  if (!(REPORT_CATEGORIES as readonly string[]).includes(category)) {
    problems.add("category", "ERR_INCLUSION", "is not included in the list");
    return "other";
  }
  return category as ReportCategory;
}

/** Rule ids that all name rules of this instance, or a problem on `rule_ids`. */
export async function validRuleIds(
  db: Executor,
  ruleIds: string[],
  problems: Problems,
): Promise<string[] | null> {
  const wellFormed = ruleIds.filter(isId);
  const found = wellFormed.length
    ? await db.select({ id: instanceRules.id }).from(instanceRules)
      .where(inArray(instanceRules.id, wellFormed))
    : [];
  if (ruleIds.length === 0 || found.length !== ruleIds.length) {
    problems.add("rule_ids", "ERR_INVALID", "does not reference valid rules");
    return null;
  }
  return ruleIds;
}

/** The attached statuses: each the target's and visible to the reporter, or NotFoundError. */
async function reportedStatusIds(
  db: Executor,
  reporterId: string,
  targetId: string,
  ids: string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  if (!ids.every(isId)) throw new NotFoundError();
  const rows = await db.select({ id: statuses.id }).from(statuses).where(and(
    inArray(statuses.id, ids),
    eq(statuses.accountId, targetId),
    visibleStatusFilter(reporterId),
  ));
  if (rows.length !== ids.length) throw new NotFoundError();
  return ids;
}

/**
 * The attached collections (null when none): each must be the target's,
 * else a problem on `collection_ids` (Mastodon's message).
 */
async function reportedCollectionIds(
  db: Executor,
  targetId: string,
  ids: string[],
  problems: Problems,
): Promise<string[] | null> {
  if (ids.length === 0) return null;
  const wellFormed = ids.filter(isId);
  const found = wellFormed.length
    ? await db.select({ id: collections.id }).from(collections)
      .where(and(inArray(collections.id, wellFormed), eq(collections.accountId, targetId)))
    : [];
  if (found.length !== ids.length) {
    problems.add("collection_ids", "ERR_INVALID", "does not reference collections of the account");
    return null;
  }
  return ids;
}

/** Normalized forwarding domains; a malformed one is a problem on `forward_to_domains`. */
function forwardDomains(
  input: ReportInput,
  target: AccountRow,
  problems: Problems,
): string[] {
  if (input.forwardToDomains === undefined) return target.domain ? [target.domain] : [];
  const out = new Set<string>();
  for (const domain of input.forwardToDomains) {
    try {
      out.add(normalizeDomain(domain));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.add("forward_to_domains", "ERR_INVALID", "is invalid");
      return [];
    }
  }
  return [...out];
}

/**
 * Whether the target has another unresolved report: then staff were told
 * already and are not told again (Mastodon's `unresolved_siblings?`).
 */
async function hasUnresolvedSibling(db: Executor, report: ReportRow): Promise<boolean> {
  const [row] = await db.select({ id: reports.id }).from(reports).where(and(
    eq(reports.targetAccountId, report.targetAccountId),
    ne(reports.id, report.id),
    isNull(reports.actionTakenAt),
  )).limit(1);
  return row != null;
}

/** Tells staff about a new report, unless the target has another one open. */
async function announce(tx: Executor, report: ReportRow, fromAccountId: string): Promise<void> {
  if (await hasUnresolvedSibling(tx, report)) return;
  await notifyStaffOfReport(tx, {
    id: report.id,
    fromAccountId,
    targetAccountId: report.targetAccountId,
  });
}

/**
 * Files a report by the local account `reporterId`.
 *
 * @throws NotFoundError for an unknown or suspended target, or a status that
 *   is not the target's or not visible to the reporter
 * @throws ValidationError for a long comment, an unknown category, rules
 *   that are not this instance's, or malformed forwarding domains
 */
export async function fileReport(
  app: AppContext,
  reporterId: string,
  input: ReportInput,
): Promise<ReportRow> {
  return await app.database.db.transaction(async (tx) => {
    const target = await requireTarget(tx, input.targetAccountId);
    const statusIds = await reportedStatusIds(
      tx,
      reporterId,
      target.id,
      unique(input.statusIds),
    );
    const problems = new Problems();
    const comment = input.comment ?? "";
    if ([...comment].length > COMMENT_MAX) {
      problems.add("comment", "ERR_TOO_LONG", `is too long (maximum is ${COMMENT_MAX} characters)`);
    }
    const category = categoryOf(input, problems);
    const collectionIds = await reportedCollectionIds(
      tx,
      target.id,
      unique(input.collectionIds),
      problems,
    );
    const ruleIds = category === "violation"
      ? await validRuleIds(tx, unique(input.ruleIds), problems)
      : null;
    // Only a remote target is forwarded; the domains matter only then.
    const forward = input.forward === true && target.domain != null;
    const domains = forward ? forwardDomains(input, target, problems) : [];
    problems.throwIfAny();

    const [report] = await tx.insert(reports).values({
      id: newId(),
      accountId: reporterId,
      targetAccountId: target.id,
      statusIds,
      comment,
      category,
      ruleIds,
      collectionIds,
      forwarded: forward && domains.includes(target.domain!),
      forwardToDomains: domains,
    }).returning();
    await announce(tx, report, reporterId);
    if (forward) await recordDelivery(tx, "reportForwarded", report.id);
    return report;
  });
}

/** A Flag from another server, reduced to the stored rows it names. */
export interface ReceivedFlag {
  /** The remote account that sent it (the reporter as Mastodon records it). */
  senderId: string;
  /** The activity's id (null when it had none: then it cannot be told from a replay). */
  uri: string | null;
  /** Accounts the Flag names, local or remote. */
  targetAccountIds: readonly string[];
  /** Statuses it names, local or remote (each is kept with its author's report). */
  statusIds: readonly string[];
  /** Collections it names, local or remote (each is kept with its owner's report). */
  collectionIds?: readonly string[];
  comment: string;
}

/**
 * Stores the reports a received Flag makes, as Mastodon's Flag handler: one
 * per named account that is not suspended and is either local, or remote
 * with a named status replying to a local account (a report forwarded here
 * because it concerns our users), with the named statuses that account
 * wrote. A replay of the same activity adds nothing. Returns the new reports.
 */
export async function receiveFlag(app: AppContext, flag: ReceivedFlag): Promise<ReportRow[]> {
  const named = unique(flag.targetAccountIds).filter(isId).slice(0, REPORT_LIST_MAX);
  if (named.length === 0) return [];
  const comment = [...flag.comment].slice(0, REMOTE_COMMENT_MAX).join("");
  return await app.database.db.transaction(async (tx) => {
    const candidates = await tx.select({ id: accounts.id, domain: accounts.domain })
      .from(accounts).where(and(
        inArray(accounts.id, named),
        ne(accounts.id, flag.senderId),
        isNull(accounts.deletedAt),
        isNull(accounts.suspendedAt),
      ));
    const wanted = unique(flag.statusIds).filter(isId).slice(0, REPORT_LIST_MAX);
    const namedStatuses = wanted.length
      ? await tx.select({
        id: statuses.id,
        accountId: statuses.accountId,
        answersLocal: sql<boolean>`EXISTS (SELECT 1 FROM accounts ra
          WHERE ra.id = ${statuses.inReplyToAccountId} AND ra.domain IS NULL)`,
      }).from(statuses).where(inArray(statuses.id, wanted))
      : [];
    const namedCollections = await flaggedCollections(tx, flag.collectionIds);
    const created: ReportRow[] = [];
    for (const target of candidates) {
      const own = namedStatuses.filter((s) => s.accountId === target.id);
      const ownCollections = namedCollections.filter((c) => c.accountId === target.id);
      if (target.domain != null && !own.some((s) => s.answersLocal)) continue;
      const [report] = await tx.insert(reports).values({
        id: newId(),
        accountId: flag.senderId,
        targetAccountId: target.id,
        statusIds: own.map((s) => s.id),
        collectionIds: ownCollections.length ? ownCollections.map((c) => c.id) : null,
        comment,
        category: "other",
        uri: flag.uri,
      }).onConflictDoNothing().returning();
      if (!report) continue;
      await announce(tx, report, flag.senderId);
      created.push(report);
    }
    return created;
  });
}

/** The collections a Flag names (a bounded number), with their owners. */
async function flaggedCollections(db: Executor, ids: readonly string[] | undefined) {
  const wanted = unique(ids).filter(isId).slice(0, REPORT_LIST_MAX);
  if (wanted.length === 0) return [];
  return await db.select({ id: collections.id, accountId: collections.accountId })
    .from(collections).where(inArray(collections.id, wanted));
}

/** A report by id, or null (ids that cannot be ids included). */
export async function findReport(db: Executor, id: string): Promise<ReportRow | null> {
  if (!isId(id)) return null;
  const [row] = await db.select().from(reports).where(eq(reports.id, id)).limit(1);
  return row ?? null;
}

/** An account a forwarded report is delivered to. */
export type ForwardingRecipient = Pick<AccountRow, "uri" | "inboxUrl" | "sharedInboxUrl">;

/**
 * Where a forwarded report goes, as Mastodon's ReportService picks it: the
 * target itself when its domain is among the report's forwarding domains,
 * and the remote accounts on those domains that the reported statuses reply
 * to, leaving out any whose inbox is the target's (that server has it).
 */
export async function forwardingRecipients(
  db: Executor,
  report: ReportRow,
): Promise<{ origin: ForwardingRecipient | null; repliedTo: ForwardingRecipient[] }> {
  const none = { origin: null, repliedTo: [] };
  const domains = report.forwardToDomains;
  if (domains.length === 0) return none;
  const [target] = await db.select().from(accounts)
    .where(eq(accounts.id, report.targetAccountId)).limit(1);
  if (!target?.domain || !target.inboxUrl || target.deletedAt) return none;
  const origin = domains.includes(target.domain) ? target : null;
  if (report.statusIds.length === 0) return { origin, repliedTo: [] };
  const rows = await db.selectDistinct({
    uri: accounts.uri,
    inboxUrl: accounts.inboxUrl,
    sharedInboxUrl: accounts.sharedInboxUrl,
  }).from(accounts).where(and(
    inArray(accounts.domain, domains),
    isNull(accounts.deletedAt),
    inArray(accounts.id, repliedToAccounts(report.statusIds)),
  ));
  const targetInboxes = new Set([target.inboxUrl, target.sharedInboxUrl]);
  const repliedTo = rows.filter((row) =>
    row.inboxUrl && !targetInboxes.has(row.sharedInboxUrl ?? row.inboxUrl)
  );
  return { origin, repliedTo };
}

/** The accounts the given statuses reply to, as a subquery. */
function repliedToAccounts(statusIds: readonly string[]) {
  return sql`(SELECT ${statuses.inReplyToAccountId} FROM ${statuses}
    WHERE ${inArray(statuses.id, [...statusIds])} AND ${statuses.inReplyToAccountId} IS NOT NULL)`;
}
