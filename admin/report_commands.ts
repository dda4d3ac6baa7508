/**
 * The `report` admin commands: the moderation queue from the command line
 * (actors/moderation/reports.ts, the same functions as the admin API). The
 * operator acts as no account: the audit row of a resolve has no account,
 * and the report shows no `action_taken_by_account`.
 */
import type { Command } from "./command.ts";
import { UsageError } from "./args.ts";
import { formatDate, printable, table } from "./format.ts";
import type { ReportRow } from "../actors/moderation/report_filing.ts";
import { accountHandles, listReports, resolveReport } from "../actors/moderation/reports.ts";

/** Reports a listing shows unless --limit says otherwise, and at most. */
const LIST_DEFAULT = 100;
const LIST_MAX = 1000;

function readLimit(value: string | undefined): number {
  if (value === undefined) return LIST_DEFAULT;
  const n = /^\d{1,7}$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n >= 1 && n <= LIST_MAX)) throw new UsageError(`--limit must be 1 to ${LIST_MAX}`);
  return n;
}

function shorten(text: string, max = 60): string {
  const chars = [...printable(text)];
  return chars.length > max ? `${chars.slice(0, max).join("")}…` : chars.join("");
}

function state(row: ReportRow): string {
  return row.actionTakenAt ? "resolved" : row.assignedAccountId ? "assigned" : "open";
}

/** The commands, merged into the command table. */
export const REPORT_COMMANDS: Record<string, Command> = {
  "report list": {
    usage: "report list [--resolved] [--limit <n>] [--json]",
    positionals: [],
    options: { resolved: "boolean", limit: "string", json: "boolean" },
    async run({ db }, args) {
      const resolved = args.flags.has("resolved");
      const rows = await listReports(db, { resolved }, { limit: readLimit(args.strings.limit) });
      const handles = await accountHandles(
        db,
        rows.flatMap((r) => [r.accountId, r.targetAccountId, r.assignedAccountId]),
      );
      const handle = (id: string | null) => (id ? handles.get(id) ?? null : null);
      if (args.flags.has("json")) {
        return JSON.stringify(
          rows.map((r) => ({
            id: r.id,
            state: state(r),
            category: r.category,
            target: handle(r.targetAccountId),
            reporter: handle(r.accountId),
            assigned_to: handle(r.assignedAccountId),
            statuses: r.statusIds.length,
            comment: r.comment,
            created_at: r.createdAt.toISOString(),
            action_taken_at: r.actionTakenAt?.toISOString() ?? null,
          })),
          null,
          2,
        );
      }
      if (!rows.length) {
        return { stdout: "", stderr: resolved ? "No resolved reports." : "No open reports." };
      }
      return table(
        ["ID", "STATE", "CATEGORY", "TARGET", "REPORTER", "STATUSES", "CREATED", "COMMENT"],
        rows.map((r) => [
          r.id,
          state(r),
          r.category,
          handle(r.targetAccountId) ?? "?",
          handle(r.accountId) ?? "?",
          String(r.statusIds.length),
          formatDate(r.createdAt),
          shorten(r.comment),
        ]),
      );
    },
  },
  "report resolve": {
    usage: "report resolve <id>",
    positionals: ["id"],
    options: {},
    async run({ db }, args) {
      const row = await resolveReport(db, null, args.positionals.id.trim());
      const target = (await accountHandles(db, [row.targetAccountId])).get(row.targetAccountId);
      return `Resolved report ${row.id}${target ? ` about @${printable(target)}` : ""}.`;
    },
  },
};
