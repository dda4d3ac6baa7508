/**
 * The reports queue (Mastodon's admin/reports index): unresolved or
 * resolved reports, newest first, optionally about one account, each row
 * with who is reported, by whom, why, and who handles it.
 */
import type { FC } from "hono/jsx";
import type { AdminAccount } from "../../../api/entities/admin_account.ts";
import type { ReportRow } from "../../../actors/moderation/report_filing.ts";
import { AccountLink, excerpt, handleOf, Time } from "./components.tsx";
import { Pagination } from "./layout.tsx";

/** One row of the queue, with its accounts as the admin API serializes them. */
export interface QueueRow {
  report: ReportRow;
  target: AdminAccount | null;
  reporter: AdminAccount | null;
  assigned: AdminAccount | null;
}

/**
 * Who filed a report as staff name them: a local reporter's handle; for a
 * report received from another server (a Flag) its domain, as Mastodon
 * shows the sending server rather than its service actor.
 */
export const Reporter: FC<{ report: ReportRow; reporter: AdminAccount | null }> = (
  { report, reporter },
) => {
  if (reporter?.domain) return <span class="remote-reporter">{reporter.domain}</span>;
  if (reporter) return <AccountLink account={reporter} />;
  if (report.uri) {
    try {
      return <span class="remote-reporter">{new URL(report.uri).host}</span>;
    } catch {
      // Fall through: an unreadable uri names nobody.
    }
  }
  return <span class="muted">(account gone)</span>;
};

/** The queue's address with these filters (and a page cursor). */
export function queueHref(
  filter: { resolved: boolean; targetAccountId?: string },
  cursor: Record<string, string> = {},
): string {
  const query = new URLSearchParams();
  if (filter.resolved) query.set("resolved", "1");
  if (filter.targetAccountId) query.set("target_account_id", filter.targetAccountId);
  for (const [key, value] of Object.entries(cursor)) query.set(key, value);
  const text = query.toString();
  return text ? `/admin/reports?${text}` : "/admin/reports";
}

/** One report of the queue. */
const QueueRowView: FC<{ row: QueueRow; resolved: boolean }> = (
  { row: { report, target, reporter, assigned }, resolved },
) => (
  <tr data-report-id={report.id}>
    <td>
      <a href={`/admin/reports/${report.id}`}>#{report.id}</a>
    </td>
    <td class="target">
      {target
        ? (
          <>
            <AccountLink account={target} />{" "}
            <a
              class="muted"
              href={queueHref({ resolved, targetAccountId: target.id })}
              title={`Only reports about @${handleOf(target)}`}
            >
              (filter)
            </a>
          </>
        )
        : <span class="muted">(account gone)</span>}
    </td>
    <td class="reporter">
      <Reporter report={report} reporter={reporter} />
    </td>
    <td class="category">{report.category}</td>
    <td class="comment">{excerpt(report.comment)}</td>
    <td class="statuses">{report.statusIds.length}</td>
    <td class="assigned">
      {assigned ? <AccountLink account={assigned} /> : <span class="muted">nobody</span>}
    </td>
    <td>
      <Time at={report.createdAt} />
    </td>
  </tr>
);

/** Unresolved or resolved, and the account the queue is about. */
const QueueFilters: FC<{
  resolved: boolean;
  targetAccountId?: string;
  target: AdminAccount | null;
}> = ({ resolved, targetAccountId, target }) => (
  <nav class="filters" aria-label="Which reports">
    <a
      href={queueHref({ resolved: false, targetAccountId })}
      aria-current={resolved ? undefined : "page"}
    >
      Unresolved
    </a>
    <a
      href={queueHref({ resolved: true, targetAccountId })}
      aria-current={resolved ? "page" : undefined}
    >
      Resolved
    </a>
    {targetAccountId
      ? (
        <span>
          About {target ? <AccountLink account={target} /> : "an unknown account"} ·{" "}
          <a href={queueHref({ resolved })}>all accounts</a>
        </span>
      )
      : null}
  </nav>
);

export const ReportsQueue: FC<{
  rows: QueueRow[];
  resolved: boolean;
  targetAccountId?: string;
  /** The account the queue is filtered to, when it is known. */
  target: AdminAccount | null;
  newer: string | null;
  older: string | null;
}> = ({ rows, resolved, targetAccountId, target, newer, older }) => (
  <>
    <QueueFilters resolved={resolved} targetAccountId={targetAccountId} target={target} />
    {rows.length === 0
      ? (
        <p class="muted" id="no-reports">
          {resolved ? "No resolved reports." : "No open reports."}
        </p>
      )
      : (
        <table class="reports">
          <thead>
            <tr>
              <th>Report</th>
              <th>Reported account</th>
              <th>Reported by</th>
              <th>Category</th>
              <th>Comment</th>
              <th>Posts</th>
              <th>Assigned to</th>
              <th>Filed</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => <QueueRowView key={row.report.id} row={row} resolved={resolved} />)}
          </tbody>
        </table>
      )}
    <Pagination newer={newer} older={older} />
  </>
);
