/**
 * Which accounts discovery may show (the directory, follow suggestions), as
 * SQL fragments over an `accounts` row named by an alias.
 */
import { type SQL, sql } from "drizzle-orm";

/** Names an `accounts` row may go by here; always a constant, never input. */
export type AccountAlias = "a";

/**
 * The account opted in to discovery and is usable: not deleted, suspended
 * or moved, not another server's instance actor, and (when local) a
 * confirmed, approved and enabled user, as Mastodon's `Account.discoverable`.
 */
export function discoverableAccount(alias: AccountAlias): SQL {
  const a = sql.raw(alias);
  return sql`(${a}.discoverable AND ${a}.deleted_at IS NULL AND ${a}.suspended_at IS NULL
    AND ${a}.moved_to_account_id IS NULL AND ${a}.actor_type <> 'Application'
    AND (${a}.domain IS NOT NULL OR EXISTS (SELECT 1 FROM users du WHERE du.account_id = ${a}.id
      AND du.approved AND du.confirmed_at IS NOT NULL AND NOT du.disabled)))`;
}

/**
 * The viewer does not block, mute (an unexpired mute) or domain-block the
 * account, and is not blocked by it. No viewer: no condition.
 */
export function notExcludedBy(viewer: string | null, alias: AccountAlias): SQL {
  if (viewer == null) return sql`TRUE`;
  const a = sql.raw(alias);
  const v = sql`${viewer}::bigint`;
  return sql`(NOT EXISTS (SELECT 1 FROM blocks x
      WHERE x.account_id = ${v} AND x.target_account_id = ${a}.id)
    AND NOT EXISTS (SELECT 1 FROM blocks x
      WHERE x.account_id = ${a}.id AND x.target_account_id = ${v})
    AND NOT EXISTS (SELECT 1 FROM mutes x WHERE x.account_id = ${v}
      AND x.target_account_id = ${a}.id AND (x.expires_at IS NULL OR x.expires_at > now()))
    AND NOT EXISTS (SELECT 1 FROM account_domain_blocks x WHERE x.account_id = ${v}
      AND ${a}.domain IS NOT NULL AND lower(x.domain) = lower(${a}.domain)))`;
}
