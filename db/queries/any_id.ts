/**
 * `column = ANY($1::bigint[])`: a set of ids as ONE array parameter.
 *
 * drizzle's `inArray` writes `IN ($1, …, $n)`, so the SQL text changes with
 * the number of ids: postgres.js then cannot reuse a prepared statement (it
 * caches them by text) and every call costs a Parse and a Describe round
 * trip, and drizzle spends time building one chunk per id. With one array
 * parameter the text is the same for any page, so hot readers can prepare it.
 */
import { Placeholder, type SQL, sql, type SQLWrapper } from "drizzle-orm";

/**
 * `column = ANY(ids)`, with `ids` (snowflake strings) as one bigint[]
 * parameter, or a placeholder filled with such an array at execution.
 */
export function anyId(column: SQLWrapper, ids: readonly string[] | Placeholder): SQL {
  const param = ids instanceof Placeholder ? ids : sql.param([...ids]);
  return sql`${column} = ANY(${param}::bigint[])`;
}
