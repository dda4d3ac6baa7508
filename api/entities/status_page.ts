/**
 * A timeline page and what it shows for its viewer, in ONE prepared
 * statement: the page query runs as the CTE `page`, the viewer statement
 * (status_hydration.ts) takes the page's ids and the ids they boost from
 * it, and the answer is the viewer's row (id and version NULL) followed by
 * each page row's id and version (every viewer column NULL). Read
 * separately, the home timeline cost two statements per request, and
 * PostgreSQL's per-statement work (Bind, locking a plan's relations, the
 * round trip) was a large part of the request's cost; so was drizzle
 * mapping forty rows column by column, which the raw rows here skip.
 *
 * The rows themselves come from the entity cache when it has them at the
 * version the page names (the row's `xmin`, which every UPDATE changes),
 * so they are never stale whoever changed them; only new or changed rows
 * are read, in a second statement. (Building the rows as JSON instead was
 * measured slower: json_build_object cost PostgreSQL half a millisecond for
 * forty rows.)
 */
import { getTableColumns, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import type { EntityCache } from "./entity_cache.ts";
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
  /**
   * The page's SQL: `id`, `version` (the row's xmin as text) and the
   * columns the viewer statement reads, `viewer` as the viewer's placeholder.
   */
  build(): SQL;
}

/** A page's rows, newest first, and the viewer's side of it for hydrate(). */
export interface PageWithViewer {
  rows: StatusRow[];
  viewerRows: ViewerRows;
}

/** A row of the page as the statement names it. */
interface PageRef {
  id: string;
  version: string;
}

/**
 * Runs `query` with `values` (which include `viewer`) and the viewer
 * statement, as one. The statement answers each row's id and version only:
 * reading forty rows of every column was a sixth of the request (postgres.js
 * makes an object of each row, key by key); a row is taken from the entity
 * cache when it has the version named, and the others are read in a second
 * statement (a page's new or changed rows).
 */
export async function readPageWithViewer(
  db: Executor,
  cache: EntityCache,
  query: PageQuery,
  values: Record<string, unknown> & { viewer: string },
): Promise<PageWithViewer> {
  const raw = await executePrepared<Record<string, unknown>>(
    db,
    `page_viewer_refs:${query.key}`,
    () => {
      const { ctes, select, columns } = viewerParts(true, SOURCE);
      const viewerNulls = sql.raw(
        Object.values(columns).map((c) => `NULL::${c.type}`).join(", "),
      );
      return sql`WITH page AS (${query.build()}), ${ctes}
        SELECT NULL::text AS id, NULL::text AS version, ${select}
        UNION ALL
        SELECT page.id::text, page.version, ${viewerNulls} FROM page`;
    },
    values,
  );
  let viewerRow: Record<string, unknown> = {};
  const refs: PageRef[] = [];
  for (const r of raw) {
    if (r.id == null) viewerRow = r;
    else refs.push({ id: r.id as string, version: r.version as string });
  }
  const viewerRows = Object.fromEntries(
    Object.entries(VIEWER_COLUMNS).map(([prop, c]) => [prop, viewerRow[c.name] ?? null]),
  ) as unknown as ViewerRows;
  return { rows: (await pageRows(db, cache, refs)).sort(newestFirst), viewerRows };
}

/** The rows `refs` name: from the cache at the version named, the others read now. */
async function pageRows(db: Executor, cache: EntityCache, refs: PageRef[]): Promise<StatusRow[]> {
  const rows: StatusRow[] = [];
  const missing: string[] = [];
  for (const ref of refs) {
    const kept = cache.rows.get(ref.id);
    if (kept?.version === ref.version) rows.push(kept.row);
    else missing.push(ref.id);
  }
  if (missing.length === 0) return rows;
  const read = await executePrepared<Record<string, unknown>>(
    db,
    "status_rows_versioned",
    () =>
      sql`SELECT ${sql.raw(COLUMNS.map((c) => `"${c.name}"`).join(", "))}, xmin::text AS version
        FROM statuses WHERE id = ANY(${sql.placeholder("ids")}::bigint[])`,
    { ids: missing },
  );
  for (const r of read) {
    const row = statusRow(r);
    cache.rows.set(row.id, { row, version: r.version as string });
    // Deleted since the page was read: shown nowhere any more.
    if (row.deletedAt == null) rows.push(row);
  }
  return rows;
}
