/**
 * Rows of a table as JSON, so one statement can bring back several kinds of
 * row at once (see api/entities/status_hydration.ts).
 *
 * `jsonRows(table, alias, where)` is a scalar subquery giving a JSON array of
 * the rows, keyed like drizzle's own rows (camelCase). Ids (bigint) travel as
 * text, because a JSON number cannot hold a snowflake. `revive` turns the
 * timestamp strings back into Dates, after which a row is what
 * `db.select().from(table)` would have returned.
 */
import { getTableColumns, getTableName, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";

interface Shape {
  list: SQL;
  timestamps: string[];
}

const shapes = new WeakMap<PgTable, Map<string, Shape>>();

/**
 * The select list (`alias.col AS "key"`, ids cast to text) and timestamp
 * keys of a table, or of the `pick`ed columns only.
 */
function shapeOf(table: PgTable, alias: string, pick?: readonly string[]): Shape {
  let byAlias = shapes.get(table);
  if (!byAlias) shapes.set(table, byAlias = new Map());
  const cacheKey = pick ? `${alias}:${pick.join(",")}` : alias;
  let shape = byAlias.get(cacheKey);
  if (shape) return shape;
  const parts: SQL[] = [];
  const timestamps: string[] = [];
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    if (pick && !pick.includes(key)) continue;
    const ref = sql`${sql.identifier(alias)}.${sql.identifier(column.name)}`;
    const type = column.getSQLType();
    if (type === "bigint") parts.push(sql`${ref}::text AS ${sql.identifier(key)}`);
    else parts.push(sql`${ref} AS ${sql.identifier(key)}`);
    if (type.startsWith("timestamp")) timestamps.push(key);
  }
  shape = { list: sql.join(parts, sql`, `), timestamps };
  byAlias.set(cacheKey, shape);
  return shape;
}

/**
 * A subquery giving the JSON array of `table` rows (aliased `alias`) that
 * `rest` selects: `rest` is the text after FROM table alias (joins, WHERE,
 * ORDER BY). `extra` adds columns (e.g. of a join) under their own names;
 * `pick` limits the table's columns to those keys (JSON is built per value,
 * so columns nobody reads are worth leaving out).
 */
export function jsonRows(
  table: PgTable,
  alias: string,
  rest: SQL,
  extra?: SQL,
  pick?: readonly string[],
): SQL {
  const { list } = shapeOf(table, alias, pick);
  const tableName = sql.identifier(getTableName(table));
  const columns = extra ? sql`${list}, ${extra}` : list;
  return sql`(SELECT coalesce(json_agg(j), '[]'::json) FROM (SELECT ${columns}
    FROM ${tableName} ${sql.identifier(alias)} ${rest}) j)`;
}

/** Turns the timestamp strings of rows made by {@link jsonRows} back into Dates (in place). */
export function revive<T>(table: PgTable, rows: unknown): T[] {
  const list = (rows ?? []) as Record<string, unknown>[];
  const { timestamps } = shapeOf(table, "_");
  for (const row of list) {
    for (const key of timestamps) {
      const value = row[key];
      if (typeof value === "string") row[key] = new Date(value);
    }
  }
  return list as T[];
}
