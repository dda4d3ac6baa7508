/**
 * A timeline page and what it shows for its viewer, in ONE prepared
 * statement: the page query runs as the CTE `page`, the viewer statement
 * (status_hydration.ts) takes the page's ids and the ids they boost from
 * it, and the answer is the viewer's row (every page column NULL) followed
 * by the page's rows (every viewer column NULL). Read separately, the home
 * timeline cost two statements per request, and PostgreSQL's per-statement
 * work (Bind, locking a plan's relations, the round trip) was a large part
 * of the request's cost; so was drizzle mapping forty rows column by
 * column, which the raw rows here skip.
 *
 * (Building the rows as JSON instead was measured slower: json_build_object
 * cost PostgreSQL half a millisecond for forty rows.)
 */
import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { statuses } from "../../db/schema/mod.ts";
import { executePrepared } from "../../db/queries/prepared.ts";
import { viewerParts, type ViewerRows } from "./status_hydration.ts";
import type { StatusRow } from "./status.ts";

/** The columns of `statuses`: property, column name, SQL type, and whether a Date. */
const COLUMNS = Object.entries(getTableColumns(statuses)).map(([prop, column]) => ({
  prop,
  name: column.name,
  type: column.getSQLType(),
  date: column.columnType === "PgTimestamp",
}));

/** The viewer statement reads the page from its CTE. */
const SOURCE = { page: "page" } as const;

/** The viewer row's columns (from the schema, like {@link COLUMNS}). */
const VIEWER_COLUMNS: Readonly<Record<string, { name: string; type: string }>> =
  viewerParts(true, SOURCE).columns;

/**
 * A raw row as the drivers give it (timestamps as text) → the row drizzle
 * would give. Generated once from the schema's column names (constants,
 * never input): V8 builds an object literal of fixed shape far faster than
 * a loop assigning computed keys (8 against 76 µs for a 40-row page).
 */
const statusRow = new Function(
  "r",
  `return { ${
    COLUMNS.map((c) =>
      `${c.prop}: ${c.date ? `r.${c.name} == null ? null : new Date(r.${c.name})` : `r.${c.name}`}`
    ).join(", ")
  } };`,
) as (raw: Record<string, unknown>) => StatusRow;

/** Newest first: ids are snowflakes of one width or shorter (older). */
function newestFirst(a: StatusRow, b: StatusRow): number {
  if (a.id.length !== b.id.length) return b.id.length - a.id.length;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** A page query with placeholders, as db/queries/timelines.ts describes one. */
export interface PageQuery {
  /** Names the page's shape (the statement is prepared per shape). */
  key: string;
  /** The page's SQL: the columns of `statuses`, `viewer` as the viewer's placeholder. */
  build(): SQL;
}

/** A page's rows, newest first, and the viewer's side of it for hydrate(). */
export interface PageWithViewer {
  rows: StatusRow[];
  viewerRows: ViewerRows;
}

/** Runs `query` with `values` (which include `viewer`) and the viewer statement, as one. */
export async function readPageWithViewer(
  db: Executor,
  query: PageQuery,
  values: Record<string, unknown> & { viewer: string },
): Promise<PageWithViewer> {
  const raw = await executePrepared<Record<string, unknown>>(
    db,
    `page_viewer:${query.key}`,
    () => {
      const { ctes, select, columns } = viewerParts(true, SOURCE);
      const pageNulls = sql.raw(COLUMNS.map((c) => `NULL::${c.type} AS "${c.name}"`).join(", "));
      const viewerNulls = sql.raw(
        Object.values(columns).map((c) => `NULL::${c.type}`).join(", "),
      );
      return sql`WITH page AS (${query.build()}), ${ctes}
        SELECT ${pageNulls}, ${select}
        UNION ALL
        SELECT page.*, ${viewerNulls} FROM page`;
    },
    values,
  );
  const columns = VIEWER_COLUMNS;
  let viewerRow: Record<string, unknown> = {};
  const rows: StatusRow[] = [];
  for (const r of raw) {
    if (r.id == null) viewerRow = r;
    else rows.push(statusRow(r));
  }
  const viewerRows = Object.fromEntries(
    Object.entries(columns).map(([prop, c]) => [prop, viewerRow[c.name] ?? null]),
  ) as unknown as ViewerRows;
  return { rows: rows.sort(newestFirst), viewerRows };
}
