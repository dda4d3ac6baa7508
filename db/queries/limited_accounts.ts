/**
 * "The author is limited": Mastodon's silenced accounts, whose posts stay
 * out of public and hashtag timelines and out of search for those who do
 * not follow them, and whose notifications follow the recipient's
 * for_limited_accounts policy. One SQL predicate that every reader shares.
 *
 * An account is limited when a moderator silenced it (`accounts.silenced_at`,
 * migration 0021, set by the admin accounts API), or when its server is
 * silenced by an instance domain block (migration 0023: the most specific
 * block covering the account's domain, as actors/domain_rules.ts decides it
 * in memory).
 */
import { type SQL, sql } from "drizzle-orm";

/**
 * True when the account whose id is `accountId` (an SQL expression, e.g.
 * `sql\`s.account_id\``) is limited: one primary-key lookup per row, and
 * an indexed lookup into domain_blocks only for remote accounts while some
 * server is silenced.
 */
export function authorIsLimited(accountId: SQL): SQL {
  // The EXISTS over domain_blocks names no row of the outer query:
  // PostgreSQL runs it once per statement (an InitPlan), and AND stops
  // there when no server is silenced.
  return sql`EXISTS (SELECT 1 FROM accounts la WHERE la.id = ${accountId}
    AND (la.silenced_at IS NOT NULL OR (la.domain IS NOT NULL
      AND EXISTS (SELECT 1 FROM domain_blocks lds WHERE lds.severity = 'silence')
      AND ${domainIsSilenced(sql`la.domain`)})))`;
}

/** True when the most specific instance domain block covering `domain` silences it. */
export function domainIsSilenced(domain: SQL): SQL {
  return sql`(SELECT ldb.severity FROM domain_blocks ldb
    WHERE ldb.domain = ANY(rookery_domain_variants(${domain}))
    ORDER BY length(ldb.domain) DESC LIMIT 1) = 'silence'`;
}

/**
 * The filter for a public place (public and hashtag timelines, search):
 * statuses of limited authors only for viewers who follow them (and the
 * authors themselves); never for anonymous viewers. `statusAlias` names the
 * `statuses` row; `viewer` is the viewer's account id, or null.
 */
export function notLimitedFor(viewer: SQL | string | null, statusAlias: string): SQL {
  const s = sql.raw(`"${statusAlias}"`);
  const limited = authorIsLimited(sql`${s}.account_id`);
  if (viewer == null) return sql`NOT ${limited}`;
  const v = sql`${viewer}::bigint`;
  return sql`(${s}.account_id = ${v} OR NOT ${limited} OR EXISTS (SELECT 1 FROM follows lf
    WHERE lf.account_id = ${v} AND lf.target_account_id = ${s}.account_id))`;
}
