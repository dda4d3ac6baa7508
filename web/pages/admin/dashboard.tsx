/** The staff dashboard: the instance's figures and what waits for a moderator. */
import type { FC } from "hono/jsx";
import type { DashboardCounts } from "../../../db/queries/admin_dashboard.ts";
import { hasPermission } from "../../../model/permissions.ts";

const FIGURES: { key: keyof DashboardCounts; label: string }[] = [
  { key: "users", label: "Users" },
  { key: "activeUsers", label: "Active users (30 days)" },
  { key: "pendingUsers", label: "Pending sign-ups" },
  { key: "openReports", label: "Open reports" },
  { key: "localStatuses", label: "Posts by local users" },
  { key: "remoteAccounts", label: "Known remote accounts" },
  { key: "knownDomains", label: "Known servers" },
  { key: "domainBlocks", label: "Blocked domains" },
];

export const Dashboard: FC<{ counts: DashboardCounts; role: string; version: string }> = (
  { counts, role, version },
) => (
  <>
    <dl class="counts">
      {FIGURES.map(({ key, label }) => (
        <div data-count={key}>
          <dt>{label}</dt>
          <dd>{counts[key].toLocaleString("en")}</dd>
        </div>
      ))}
    </dl>
    <h2>Waiting for you</h2>
    <ul>
      {hasPermission(role, "manage_reports")
        ? (
          <li>
            <a href="/admin/reports">
              {counts.openReports === 1 ? "1 open report" : `${counts.openReports} open reports`}
            </a>
          </li>
        )
        : null}
      {hasPermission(role, "manage_users")
        ? (
          <li>
            <a href="/admin/accounts?status=pending">
              {counts.pendingUsers === 1
                ? "1 sign-up to review"
                : `${counts.pendingUsers} sign-ups to review`}
            </a>
          </li>
        )
        : null}
    </ul>
    <p class="muted">Rookery {version}</p>
  </>
);
