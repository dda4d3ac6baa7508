/** The FilterStatus entity: `{id, status_id}`. */
import type { FilterStatusRow } from "../../actors/filters/filters.ts";

export interface FilterStatusJson {
  id: string;
  status_id: string;
}

/** Serializes a filter status row. */
export function filterStatusEntity(row: FilterStatusRow): FilterStatusJson {
  return { id: row.id, status_id: row.statusId };
}
