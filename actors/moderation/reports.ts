/**
 * What staff do with reports (Mastodon's Admin::ReportsController and
 * Report model): list them, change their category and cited rules, assign
 * them to themselves or unassign them, resolve and reopen them. The admin
 * API and the admin command line call these same functions.
 *
 * Every command locks the report's row, changes it and writes its audit row
 * (actors/moderation/audit_log.ts, Mastodon's action names `update`, `assigned_to_self`,
 * `unassigned`, `resolve`, `reopen`) in one transaction. As Mastodon, a
 * command that changes nothing (resolving a resolved report) still succeeds
 * and is still logged: the log records what staff did, not what changed.
 * `updated_at` moves only when a column does, as Rails' `update!`.
 */
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { newestFirst, pageWindow } from "../../db/queries/id_paging.ts";
import type { Executor } from "../../db/connection.ts";
import { isId } from "../../db/ids.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { accounts, reports } from "../../db/schema/mod.ts";
import { type Actor, recordAdminAction } from "./audit_log.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { REPORT_CATEGORIES, type ReportRow, validRuleIds } from "./report_filing.ts";

/** Which reports a list shows (Mastodon's ReportFilter, as the API exposes it). */
export interface ReportFilter {
  /** true: only resolved reports; false (Mastodon's default): only unresolved ones. */
  resolved: boolean;
  /** Filed by this account. */
  accountId?: string;
  /** About this account. */
  targetAccountId?: string;
}

/** One page by report id, newest first (`minId` reads the ones just above it). */
export interface ReportPage {
  maxId?: string | null;
  sinceId?: string | null;
  minId?: string | null;
  limit: number;
}

/**
 * A page of reports, newest first. A filter id that cannot be an id matches
 * nothing (Mastodon casts it and finds no report), so it is an empty page.
 */
export async function listReports(
  db: Executor,
  filter: ReportFilter,
  page: ReportPage,
): Promise<ReportRow[]> {
  for (const id of [filter.accountId, filter.targetAccountId]) {
    if (id !== undefined && !isId(id)) return [];
  }
  const window = pageWindow(reports.id, page);
  const rows = await db.select().from(reports).where(and(
    filter.resolved ? isNotNull(reports.actionTakenAt) : isNull(reports.actionTakenAt),
    filter.accountId ? eq(reports.accountId, filter.accountId) : undefined,
    filter.targetAccountId ? eq(reports.targetAccountId, filter.targetAccountId) : undefined,
    window.where,
  )).orderBy(window.order).limit(page.limit);
  return newestFirst(rows, window.reverse);
}

/**
 * The handles of accounts (`user` or `user@domain`) by id, for listings that
 * name reporters and targets in plain text (the admin command line).
 */
export async function accountHandles(
  db: Executor,
  ids: readonly (string | null)[],
): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id != null && isId(id)))];
  if (wanted.length === 0) return new Map();
  const rows = await db.select({
    id: accounts.id,
    username: accounts.username,
    domain: accounts.domain,
  })
    .from(accounts).where(anyId(accounts.id, wanted));
  return new Map(rows.map((r) => [r.id, r.domain ? `${r.username}@${r.domain}` : r.username]));
}

/** A report by id for staff, or NotFoundError. */
export async function requireReport(db: Executor, id: string): Promise<ReportRow> {
  if (!isId(id)) throw new NotFoundError();
  const [row] = await db.select().from(reports).where(eq(reports.id, id)).limit(1);
  if (!row) throw new NotFoundError();
  return row;
}

type ReportColumns = Partial<
  Pick<
    ReportRow,
    "category" | "ruleIds" | "assignedAccountId" | "actionTakenAt" | "actionTakenByAccountId"
  >
>;

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * Runs one staff command on a report: locks its row, lets `decide` work out
 * the new column values (it may throw a ValidationError: nothing is
 * written then), writes them and the audit row together.
 */
async function act(
  db: Executor,
  actor: Actor,
  id: string,
  action: string,
  decide: (row: ReportRow, tx: Executor) => Promise<ReportColumns> | ReportColumns,
): Promise<ReportRow> {
  if (!isId(id)) throw new NotFoundError("No such report");
  return await db.transaction(async (tx) => {
    const [row] = await tx.select().from(reports).where(eq(reports.id, id)).for("update");
    if (!row) throw new NotFoundError(`No report with id ${id}`);
    const set = await decide(row, tx);
    const changed = (Object.keys(set) as (keyof ReportColumns)[])
      .some((key) => !sameValue(row[key], set[key]));
    let updated = row;
    if (changed) {
      [updated] = await tx.update(reports).set({ ...set, updatedAt: new Date() })
        .where(eq(reports.id, id)).returning();
    }
    await recordAdminAction(tx, {
      accountId: actor,
      action,
      targetType: "Report",
      targetId: id,
      // Mastodon names a report in its log by its number.
      humanIdentifier: id,
    });
    return updated;
  });
}

/** What `PUT /api/v1/admin/reports/:id` may change. */
export interface ReportChanges {
  category?: string;
  ruleIds?: readonly string[];
}

/**
 * Changes a report's category and cited rules, with Mastodon's rules: the
 * category is one of spam, legal, violation, other; a `violation` cites
 * rules of this instance (at least one); any other category cites none.
 * Mastodon's own admin client sends `rule_ids: []` with a new category; a
 * client that only sends the category gets the old rules dropped rather
 * than a 422, since a non-violation report cannot keep them.
 *
 * @throws NotFoundError for an unknown report
 * @throws ValidationError for an unknown category, rules cited outside a
 *   violation, or a violation without valid rules
 */
export async function updateReport(
  db: Executor,
  actor: Actor,
  id: string,
  changes: ReportChanges,
): Promise<ReportRow> {
  return await act(db, actor, id, "update", async (row, tx) => {
    const problems = new Problems();
    const asked = changes.category?.trim();
    if (asked && !(REPORT_CATEGORIES as readonly string[]).includes(asked)) {
      problems.add("category", "ERR_INCLUSION", "is not included in the list");
      problems.throwIfAny();
    }
    const category = asked || row.category;
    const given = changes.ruleIds === undefined ? undefined : [...new Set(changes.ruleIds)];
    let ruleIds: string[] | null;
    if (given !== undefined) ruleIds = given.length > 0 ? given : null;
    else ruleIds = category === "violation" ? row.ruleIds : null;
    // Mastodon validates the rules only when the category or the rules change.
    const changed = category !== row.category || !sameValue(ruleIds, row.ruleIds);
    if (changed && category !== "violation" && ruleIds) {
      problems.add("rule_ids", "ERR_PRESENT", "must be blank");
    }
    if (changed && category === "violation") {
      await validRuleIds(tx, ruleIds ?? [], problems);
    }
    problems.throwIfAny();
    return { category, ruleIds };
  });
}

/** Assigns the report to the staff member acting (Mastodon's `assign_to_self`). */
export async function assignReportToSelf(
  db: Executor,
  staffAccountId: string,
  id: string,
): Promise<ReportRow> {
  return await act(db, staffAccountId, id, "assigned_to_self", () => ({
    assignedAccountId: staffAccountId,
  }));
}

/** Leaves the report to whoever claims it next. */
export async function unassignReport(db: Executor, actor: Actor, id: string): Promise<ReportRow> {
  return await act(db, actor, id, "unassigned", () => ({ assignedAccountId: null }));
}

/**
 * Marks the report resolved now, by `actor` (null from the command line:
 * then no account is recorded as having taken the action). Resolving again
 * renews the time and the staff member, as Mastodon's `resolve!`.
 */
export async function resolveReport(db: Executor, actor: Actor, id: string): Promise<ReportRow> {
  return await act(db, actor, id, "resolve", () => ({
    actionTakenAt: new Date(),
    actionTakenByAccountId: actor,
  }));
}

/** Opens a resolved report again, forgetting who resolved it (Mastodon's `unresolve!`). */
export async function reopenReport(db: Executor, actor: Actor, id: string): Promise<ReportRow> {
  return await act(db, actor, id, "reopen", () => ({
    actionTakenAt: null,
    actionTakenByAccountId: null,
  }));
}
