/**
 * "The author is limited": Mastodon's silenced accounts, whose posts stay
 * out of public and hashtag timelines and out of search for those who do
 * not follow them, and whose notifications follow the recipient's
 * for_limited_accounts policy. One SQL predicate that every reader shares.
 *
 * An account is limited when a moderator silenced it (`accounts.silenced_at`,
 * migration 0021, set by the admin accounts API), or when its server is
 * silenced by an instance domain block (migration 0023: the most specific
 * block covering the account's domain, as actors/moderation/domain_rules.ts decides it
 * in memory). The readers ask db/queries/visibility.ts's notLimitedFilter
 * (discovery lists, streams) and the notification policy, both built on
 * {@link authorIsLimited}.
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
