/**
 * Admin::Measure figures (POST /api/v1/admin/measures): per-day series over
 * a window of whole UTC days, the window's total and the total of the
 * window of the same length just before it. Every figure is read from our
 * own tables (Mastodon keeps some in Redis); each measure is a set of
 * events (`at` timestamp, plus `who` for distinct counts or `n` for sums)
 * bounded by the window through an index, aggregated by day in SQL.
 *
 * What counts:
 * - active_users: distinct local accounts active in the period, as Mastodon
 *   counts sign-in activity: the days they used the API or the web pages
 *   (user_activity_days, actors/accounts/user_activity.ts), and, for days before that
 *   was recorded, the days they posted (statuses, boosts) or favourited.
 * - new_users: users created; interactions: favourites, boosts and replies
 *   received by local statuses (rows that still exist).
 * - opened_reports / resolved_reports: reports filed / resolved.
 * - tag_uses / tag_accounts / tag_servers (param id): statuses with the tag,
 *   distinct authors, distinct servers (ours counted as one).
 * - instance_* (param domain): accounts discovered, media bytes, reports
 *   about its accounts, statuses, follows from it, follows of it by us.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { idRange, previousWindow, rowsOf, timeRange, type Window } from "./window.ts";

type Aggregate = "count" | "distinct" | "sum";

interface MeasureDef {
  aggregate: Aggregate;
  unit?: "bytes";
  /** The param it needs (`tag_uses[id]`, `instance_statuses[domain]`); absent: none. */
  param?: "id" | "domain";
  /** The events in a window; `arg` is the param's value when the measure has one. */
  events: (w: Window, arg: string) => SQL;
}

/** The accounts of a remote domain, as an id list for `IN (…)`. */
const domainAccounts = (domain: string) => sql`(SELECT id FROM accounts WHERE domain = ${domain})`;

const tagStatuses = (w: Window, tagId: string) =>
  sql`statuses_tags st JOIN statuses s ON s.id = st.status_id AND s.deleted_at IS NULL
      JOIN accounts a ON a.id = s.account_id
      WHERE st.tag_id = ${tagId}::bigint AND ${idRange(sql`st.status_id`, w)}`;

export const MEASURES: Record<string, MeasureDef> = {
  active_users: {
    aggregate: "distinct",
    events: (w) =>
      sql`SELECT (d.day::timestamp AT TIME ZONE 'UTC') AS at, u.account_id AS who
          FROM user_activity_days d JOIN users u ON u.id = d.user_id
          WHERE d.day >= ${day(w.from)}::date AND d.day < ${day(w.to)}::date
        UNION ALL
        SELECT s.created_at AS at, s.account_id AS who FROM statuses s
          WHERE ${idRange(sql`s.id`, w)} AND s.local
        UNION ALL
        SELECT f.created_at, f.account_id FROM favourites f
          JOIN accounts a ON a.id = f.account_id AND a.domain IS NULL
          WHERE ${idRange(sql`f.id`, w)}`,
  },
  new_users: {
    aggregate: "count",
    events: (w) => sql`SELECT u.created_at AS at FROM users u WHERE ${idRange(sql`u.id`, w)}`,
  },
  interactions: {
    aggregate: "count",
    events: (w) =>
      // Interactions still waiting for approval count once approved.
      sql`SELECT f.created_at AS at FROM favourites f JOIN statuses t ON t.id = f.status_id AND t.local
          WHERE ${idRange(sql`f.id`, w)} AND NOT f.pending_approval
        UNION ALL
        SELECT b.created_at FROM statuses b JOIN statuses t ON t.id = b.reblog_of_id AND t.local
          WHERE ${idRange(sql`b.id`, w)} AND b.deleted_at IS NULL AND NOT b.pending_approval
        UNION ALL
        SELECT r.created_at FROM statuses r JOIN statuses t ON t.id = r.in_reply_to_id AND t.local
          WHERE ${idRange(sql`r.id`, w)} AND r.deleted_at IS NULL AND NOT r.pending_approval`,
  },
  opened_reports: {
    aggregate: "count",
    events: (w) => sql`SELECT r.created_at AS at FROM reports r WHERE ${idRange(sql`r.id`, w)}`,
  },
  resolved_reports: {
    aggregate: "count",
    // Read through reports_action_taken_at_idx (migration 0025).
    events: (w) =>
      sql`SELECT r.action_taken_at AS at FROM reports r
          WHERE ${timeRange(sql`r.action_taken_at`, w)}`,
  },
  tag_uses: {
    aggregate: "count",
    param: "id",
    events: (w, id) => sql`SELECT s.created_at AS at FROM ${tagStatuses(w, id)}`,
  },
  tag_accounts: {
    aggregate: "distinct",
    param: "id",
    events: (w, id) =>
      sql`SELECT s.created_at AS at, s.account_id AS who FROM ${tagStatuses(w, id)}`,
  },
  tag_servers: {
    aggregate: "distinct",
    param: "id",
    events: (w, id) =>
      sql`SELECT s.created_at AS at, coalesce(a.domain, '') AS who FROM ${tagStatuses(w, id)}`,
  },
  instance_accounts: {
    aggregate: "count",
    param: "domain",
    events: (w, domain) =>
      sql`SELECT a.created_at AS at FROM accounts a
          WHERE a.domain = ${domain} AND ${timeRange(sql`a.created_at`, w)}`,
  },
  instance_media_attachments: {
    aggregate: "sum",
    unit: "bytes",
    param: "domain",
    events: (w, domain) =>
      sql`SELECT m.created_at AS at, coalesce(m.file_size, 0) AS n FROM media_attachments m
          WHERE m.account_id IN ${domainAccounts(domain)} AND ${idRange(sql`m.id`, w)}`,
  },
  instance_reports: {
    aggregate: "count",
    param: "domain",
    events: (w, domain) =>
      sql`SELECT r.created_at AS at FROM reports r
          WHERE r.target_account_id IN ${domainAccounts(domain)} AND ${idRange(sql`r.id`, w)}`,
  },
  instance_statuses: {
    aggregate: "count",
    param: "domain",
    events: (w, domain) =>
      sql`SELECT s.created_at AS at FROM statuses s
          WHERE s.account_id IN ${domainAccounts(domain)} AND ${idRange(sql`s.id`, w)}
            AND s.deleted_at IS NULL`,
  },
  instance_follows: {
    aggregate: "count",
    param: "domain",
    events: (w, domain) =>
      sql`SELECT f.created_at AS at FROM follows f
          WHERE f.account_id IN ${domainAccounts(domain)} AND ${idRange(sql`f.id`, w)}`,
  },
  instance_followers: {
    aggregate: "count",
    param: "domain",
    events: (w, domain) =>
      sql`SELECT f.created_at AS at FROM follows f
          WHERE f.target_account_id IN ${domainAccounts(domain)} AND ${idRange(sql`f.id`, w)}`,
  },
};

export interface MeasureResult {
  key: string;
  unit: string | null;
  total: number;
  previousTotal: number;
  data: { date: Date; value: number }[];
}

/** A day as `YYYY-MM-DD` (UTC). */
export function day(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function aggregateSql(kind: Aggregate): SQL {
  if (kind === "distinct") return sql`count(DISTINCT e.who)`;
  if (kind === "sum") return sql`coalesce(sum(e.n), 0)`;
  return sql`count(*)`;
}

/**
 * One measure over `w`: a single statement giving the day series, the
 * window's total and the previous window's total.
 */
export async function computeMeasure(
  db: Executor,
  key: string,
  w: Window,
  arg: string,
): Promise<MeasureResult> {
  const def = MEASURES[key];
  const agg = aggregateSql(def.aggregate);
  const prev = previousWindow(w);
  const result = await db.execute(sql`
    WITH e AS (${def.events(w, arg)})
    SELECT 'day' AS kind, to_char(d.day, 'YYYY-MM-DD') AS day, coalesce(x.v, 0)::bigint::text AS v
      FROM generate_series(${day(w.from)}::date, ${day(new Date(w.to.getTime() - 1))}::date,
                           interval '1 day') d(day)
      LEFT JOIN (SELECT (e.at AT TIME ZONE 'UTC')::date AS day, ${agg} AS v
                   FROM e GROUP BY 1) x ON x.day = d.day::date
    UNION ALL SELECT 'total', NULL, (SELECT ${agg} FROM e)::bigint::text
    UNION ALL SELECT 'previous', NULL,
      (SELECT ${agg} FROM (${def.events(prev, arg)}) e)::bigint::text`);
  const rows = rowsOf<{ kind: string; day: string | null; v: string }>(result);
  const data = rows.filter((r) => r.kind === "day")
    .map((r) => ({ date: new Date(`${r.day}T00:00:00Z`), value: Number(r.v) }))
    .sort((a, b) => a.date.getTime() - b.date.getTime());
  return {
    key,
    unit: def.unit ?? null,
    total: Number(rows.find((r) => r.kind === "total")?.v ?? 0),
    previousTotal: Number(rows.find((r) => r.kind === "previous")?.v ?? 0),
    data,
  };
}
