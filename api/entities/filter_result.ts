/** The FilterResult entity: `{filter, keyword_matches, status_matches}`. */
import type { FilterMatch } from "../../actors/filters/match.ts";
import { filterEntity, type FilterJson } from "./filter.ts";

export interface FilterResultJson {
  filter: FilterJson;
  keyword_matches: string[] | null;
  status_matches: string[] | null;
}

/** Serializes one match of a status against a filter. */
export function filterResultEntity(match: FilterMatch): FilterResultJson {
  return {
    filter: filterEntity(match.filter),
    keyword_matches: match.keywordMatches,
    status_matches: match.statusMatches,
  };
}
