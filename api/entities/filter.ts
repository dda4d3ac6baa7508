/**
 * The Filter entity (v2): `{id, title, context, expires_at, filter_action,
 * keywords, statuses}`. Inside a FilterResult the keywords and statuses are
 * left out, as Mastodon does.
 */
import type { FilterRow, FilterWithRules } from "../../actors/filters/filters.ts";
import { filterKeywordEntity, type FilterKeywordJson } from "./filter_keyword.ts";
import { filterStatusEntity, type FilterStatusJson } from "./filter_status.ts";

export interface FilterJson {
  id: string;
  title: string;
  context: string[];
  expires_at: string | null;
  filter_action: string;
  keywords?: FilterKeywordJson[];
  statuses?: FilterStatusJson[];
}

/** The filter alone (as a FilterResult shows it). */
export function filterEntity(row: FilterRow): FilterJson {
  return {
    id: row.id,
    title: row.title,
    context: row.context,
    expires_at: row.expiresAt?.toISOString() ?? null,
    filter_action: row.action,
  };
}

/** The filter with its keywords and statuses (what the filter routes answer). */
export function filterWithRulesEntity(found: FilterWithRules): FilterJson {
  return {
    ...filterEntity(found.filter),
    keywords: found.keywords.map(filterKeywordEntity),
    statuses: found.statuses.map(filterStatusEntity),
  };
}
