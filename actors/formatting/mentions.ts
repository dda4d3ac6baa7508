/**
 * Resolves the mentions of parsed texts (parsed_text.ts) to accounts: the
 * one resolver of statuses, edits, bios, profile fields and announcements.
 *
 * Local accounts (`@user`, or `@user@` this server's domain) and remote
 * accounts this server already knows resolve from the database in one query,
 * as Mastodon's formatter does. Other remote mentions are looked up only
 * when the caller passes a resolver (WebFinger and a signed fetch, for
 * statuses), before any transaction opens, so no network wait holds a lock.
 * A mention nobody can resolve stays plain text, as in Mastodon.
 */
import { and, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accounts } from "../../db/schema/mod.ts";
import { mentionKey, type MentionName, type ParsedText } from "./parsed_text.ts";
import type { MentionTarget } from "./text_to_html.ts";

/** At most this many distinct mentions are resolved per text (or per profile). */
const MAX_MENTIONS = 50;
/** At most this many remote handles are fetched per text. */
const MAX_REMOTE_LOOKUPS = 10;

export type MentionedAccount = typeof accounts.$inferSelect;

/** Finds (and may fetch) a remote account by `user@domain`; null when unknown. */
export type RemoteAccountResolver = (handle: string) => Promise<MentionedAccount | null>;

/**
 * The accounts mentioned in `texts`, keyed by {@link mentionKey} of each
 * mention as written (`alice` and `alice@` our domain both name the local
 * alice): stored ones first, then the resolver's.
 */
export async function resolveMentionAccounts(
  db: Executor,
  localDomain: string,
  texts: readonly ParsedText[],
  resolver?: RemoteAccountResolver,
): Promise<Map<string, MentionedAccount>> {
  const { wanted, aliases } = wantedHandles(localDomain, texts);
  const found = new Map<string, MentionedAccount>();
  if (wanted.size === 0) return found;
  const conditions: SQL[] = [...wanted.values()].map(({ username, domain }) => {
    const sameName = sql`lower(${accounts.username}) = ${username.toLowerCase()}`;
    return domain == null
      ? and(sameName, isNull(accounts.domain))!
      : and(sameName, sql`lower(${accounts.domain}) = ${domain}`)!;
  });
  const rows = await db.select().from(accounts).where(or(...conditions));
  let lookups = 0;
  for (const [key, name] of wanted) {
    const row = rows.find((r) => sameHandle(r, name));
    if (row) {
      found.set(key, row);
    } else if (name.domain != null && resolver && lookups < MAX_REMOTE_LOOKUPS) {
      lookups++;
      const fetched = await resolver(`${name.username}@${name.domain}`).catch(() => null);
      if (fetched && !fetched.deletedAt) found.set(key, fetched);
    }
  }
  for (const [alias, key] of aliases) {
    const account = found.get(key);
    if (account) found.set(alias, account);
  }
  return found;
}

/**
 * The distinct handles to look up (local ones without a domain), at most
 * {@link MAX_MENTIONS}, and the mentions written with this server's domain,
 * keyed to the bare handle they resolve as.
 */
function wantedHandles(localDomain: string, texts: readonly ParsedText[]) {
  const local = localDomain.toLowerCase();
  const wanted = new Map<string, MentionName>();
  const aliases = new Map<string, string>();
  for (const text of texts) {
    for (const { name } of text.mentions) {
      const isLocal = name.domain == null || name.domain === local;
      const handle = isLocal ? { username: name.username, domain: null } : name;
      const key = mentionKey(handle);
      if (isLocal && name.domain != null) aliases.set(mentionKey(name), key);
      if (wanted.size >= MAX_MENTIONS) continue;
      wanted.set(key, handle);
    }
  }
  return { wanted, aliases };
}

function sameHandle(row: MentionedAccount, name: MentionName): boolean {
  return !row.deletedAt && row.username.toLowerCase() === name.username.toLowerCase() &&
    (name.domain == null ? row.domain == null : row.domain?.toLowerCase() === name.domain);
}

/** What the formatter links each resolved mention to (textToHtml's `mentions`). */
export function mentionTargets(
  mentioned: ReadonlyMap<string, MentionedAccount>,
): Map<string, MentionTarget> {
  const targets = new Map<string, MentionTarget>();
  for (const [key, row] of mentioned) {
    targets.set(key, { url: row.url ?? row.uri, display: row.username, accountId: row.id });
  }
  return targets;
}
