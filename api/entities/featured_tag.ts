/**
 * The FeaturedTag entity: a hashtag featured on a profile.
 *
 * Shaped as Mastodon's serializer sends it, which differs from the entity
 * page in two places clients have long coped with: `statuses_count` is a
 * string and `last_status_at` is a date (`YYYY-MM-DD`), not a datetime.
 */
import type { FeaturedTagRow } from "../../db/queries/accounts.ts";
import { localUris } from "../../model/uris.ts";

/** The FeaturedTag entity. */
export interface FeaturedTag {
  id: string;
  name: string;
  /** The profile's statuses with this tag: `https://host/@user/tagged/name`. */
  url: string;
  statuses_count: string;
  last_status_at: string | null;
}

/**
 * Serializes a featured tag of `account`. The URL is on our own origin, as
 * Mastodon builds it (`@user@domain` for remote accounts).
 */
export function featuredTagEntity(
  origin: string,
  account: { username: string; domain: string | null },
  row: FeaturedTagRow,
): FeaturedTag {
  const acct = account.domain ? `${account.username}@${account.domain}` : account.username;
  return {
    id: row.id,
    name: row.name,
    url: localUris(origin).taggedPage(acct, row.name),
    statuses_count: String(row.statusesCount),
    last_status_at: row.lastStatusAt ? row.lastStatusAt.toISOString().slice(0, 10) : null,
  };
}
