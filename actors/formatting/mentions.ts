/**
 * Resolves the mentions of a text to accounts this server already knows, in
 * one query, as Mastodon's formatter does (it never fetches while rendering):
 * local accounts by username, remote ones by username and domain.
 */
import { and, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accounts } from "../../db/schema/mod.ts";
import { extractMentions, mentionKey, type MentionTarget } from "./text_to_html.ts";

/** At most this many distinct mentions are looked up per text (bios are short). */
const MAX_MENTIONS = 50;

/**
 * The known accounts mentioned in `texts`, keyed by {@link mentionKey}. A
 * mention of this server's own domain counts as a local mention.
 */
export async function resolveMentions(
  db: Executor,
  localDomain: string,
  texts: readonly string[],
): Promise<Map<string, MentionTarget>> {
  const local = localDomain.toLowerCase();
  const wanted = new Map<string, { username: string; domain: string | null }>();
  for (const text of texts) {
    for (const name of extractMentions(text)) {
      if (wanted.size >= MAX_MENTIONS) break;
      wanted.set(mentionKey(name), name);
    }
  }
  const result = new Map<string, MentionTarget>();
  if (wanted.size === 0) return result;
  const conditions: SQL[] = [...wanted.values()].map(({ username, domain }) => {
    const sameName = sql`lower(${accounts.username}) = ${username.toLowerCase()}`;
    return domain == null || domain === local
      ? and(sameName, isNull(accounts.domain))!
      : and(sameName, sql`lower(${accounts.domain}) = ${domain}`)!;
  });
  const rows = await db.select({
    id: accounts.id,
    username: accounts.username,
    domain: accounts.domain,
    uri: accounts.uri,
    url: accounts.url,
    deletedAt: accounts.deletedAt,
  }).from(accounts).where(or(...conditions));
  for (const [key, name] of wanted) {
    const isLocal = name.domain == null || name.domain === local;
    const row = rows.find((r) =>
      !r.deletedAt && r.username.toLowerCase() === name.username.toLowerCase() &&
      (isLocal ? r.domain == null : r.domain?.toLowerCase() === name.domain)
    );
    if (row) result.set(key, { url: row.url ?? row.uri, display: row.username, accountId: row.id });
  }
  return result;
}
