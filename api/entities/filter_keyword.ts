/** The FilterKeyword entity: `{id, keyword, whole_word}`. */
import type { FilterKeywordRow } from "../../actors/filters/filters.ts";

export interface FilterKeywordJson {
  id: string;
  keyword: string;
  whole_word: boolean;
}

/** Serializes a keyword row. */
export function filterKeywordEntity(row: FilterKeywordRow): FilterKeywordJson {
  return { id: row.id, keyword: row.keyword, whole_word: row.wholeWord };
}
