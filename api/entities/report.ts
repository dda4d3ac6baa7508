/**
 * The Report entity (Mastodon's REST::ReportSerializer): what the reporter
 * filed, shown to the reporter and, inside `admin.report` notifications, to
 * staff. `action_taken` is whether a moderator resolved it; `rule_ids` is
 * null unless rules were cited. The target comes through the Account
 * serializer, a page of reports at a time.
 */
import type { AppContext } from "../../context.ts";
import { inArray } from "drizzle-orm";
import type { ReportRow } from "../../actors/moderation/report_filing.ts";
import { reports } from "../../db/schema/mod.ts";
import { type Account, loadAccountEntities } from "./account.ts";

export interface ReportJson {
  id: string;
  action_taken: boolean;
  action_taken_at: string | null;
  category: string;
  comment: string;
  forwarded: boolean;
  created_at: string;
  status_ids: string[];
  rule_ids: string[] | null;
  /** Collections of the target (Mastodon 4.6); null when none. */
  collection_ids: string[] | null;
  target_account: Account;
}

/** The members Report and Admin::Report share, as Mastodon's serializers write them. */
export function reportBasics(row: ReportRow) {
  return {
    id: row.id,
    action_taken: row.actionTakenAt != null,
    action_taken_at: row.actionTakenAt?.toISOString() ?? null,
    category: row.category,
    comment: row.comment,
    forwarded: row.forwarded,
    created_at: row.createdAt.toISOString(),
  };
}

/** Serializes reports in the order given; one whose target cannot be loaded is left out. */
export async function serializeReports(
  ctx: AppContext,
  rows: readonly ReportRow[],
): Promise<ReportJson[]> {
  if (rows.length === 0) return [];
  const targets = await loadAccountEntities(
    ctx.database.db,
    ctx.config,
    rows.map((r) => r.targetAccountId),
  );
  const byId = new Map(targets.map((a) => [a.id, a]));
  const out: ReportJson[] = [];
  for (const row of rows) {
    const target = byId.get(row.targetAccountId);
    if (!target) continue;
    out.push({
      ...reportBasics(row),
      status_ids: row.statusIds,
      rule_ids: row.ruleIds && row.ruleIds.length ? row.ruleIds : null,
      collection_ids: row.collectionIds?.length ? row.collectionIds : null,
      target_account: target,
    });
  }
  return out;
}

/** Serializes one report (its target is always loadable right after filing). */
export async function serializeReport(ctx: AppContext, row: ReportRow): Promise<ReportJson> {
  const [json] = await serializeReports(ctx, [row]);
  if (!json) throw new Error(`Report ${row.id} has no loadable target`);
  return json;
}

/** Serializes reports by id (one batch), keyed by id; unknown ids are missing. */
export async function reportsById(
  ctx: AppContext,
  ids: readonly (string | null)[],
): Promise<Map<string, ReportJson>> {
  const wanted = [...new Set(ids.filter((id): id is string => id != null))];
  if (wanted.length === 0) return new Map();
  const rows = await ctx.database.db.select().from(reports).where(inArray(reports.id, wanted));
  const list = await serializeReports(ctx, rows);
  return new Map(list.map((r) => [r.id, r]));
}
