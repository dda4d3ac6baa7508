/**
 * The compiled filters of many viewers at once, for one streamed status:
 * from the entity cache (where status_filters.ts keeps them too) and, for
 * the viewers it lacks, ONE query per table for all of them, stored back
 * in the cache, so a thousand connected followers cost no thousand queries.
 * Only viewers with filters are in the map it returns: after a post to
 * 10,000 followers, nearly none, and the map is not built entry by entry.
 */
import { asc } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { customFilters } from "../../db/schema/mod.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { withRules } from "../../actors/filters/filters.ts";
import { type CompiledFilter, compileFilters } from "../../actors/filters/match.ts";

export async function filtersOfViewers(
  ctx: AppContext,
  accountIds: readonly string[],
): Promise<Map<string, CompiledFilter[]>> {
  const out = new Map<string, CompiledFilter[]>();
  if (accountIds.length === 0) return out;
  const cache = ctx.core.entityCache;
  const epoch = await cache.begin();
  const missing: string[] = [];
  for (const id of accountIds) {
    const cached = cache.enabled ? cache.filters.get(id) : undefined;
    if (cached === undefined) missing.push(id);
    else if (cached.length > 0) out.set(id, cached);
  }
  if (missing.length === 0) return out;
  const { db } = ctx.database;
  const rows = await db.select().from(customFilters)
    .where(anyId(customFilters.accountId, missing)).orderBy(asc(customFilters.id));
  const withKeywords = await withRules(db, rows);
  const byAccount = new Map<string, typeof withKeywords>();
  for (const f of withKeywords) {
    const list = byAccount.get(f.filter.accountId);
    if (list) list.push(f);
    else byAccount.set(f.filter.accountId, [f]);
  }
  for (const id of missing) {
    const compiled = compileFilters(byAccount.get(id) ?? []);
    if (compiled.length > 0) out.set(id, compiled);
    if (cache.enabled) cache.storeFilters(epoch, id, compiled);
  }
  return out;
}
