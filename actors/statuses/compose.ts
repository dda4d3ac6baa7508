/**
 * Turns what a local author typed into what is stored: HTML through the
 * shared formatter, the accounts mentioned and the hashtags used, all from
 * one parse of the text (text_to_html.ts ParsedText).
 *
 * Mentions of local accounts and of remote accounts this server already
 * knows resolve from the database in one query; other remote mentions are
 * looked up (WebFinger and a signed fetch) through the resolver the caller
 * passes, before any transaction opens, so no network wait holds a lock. A
 * mention nobody can resolve stays plain text, as in Mastodon.
 */
import { and, isNull, or, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accounts } from "../../db/schema/mod.ts";
import {
  extractHashtags,
  extractMentions,
  mentionKey,
  type MentionName,
  type MentionTarget,
  type ParsedText,
  parseText,
  textToHtml,
} from "../formatting/text_to_html.ts";

/** At most this many distinct mentions are resolved per status. */
const MAX_MENTIONS = 50;
/** At most this many remote handles are fetched per status. */
const MAX_REMOTE_LOOKUPS = 10;

type AccountRow = typeof accounts.$inferSelect;

/** Finds (and may fetch) a remote account by `user@domain`; null when unknown. */
export type RemoteAccountResolver = (handle: string) => Promise<AccountRow | null>;

/** The stored form of a local author's text. */
export interface ComposedText {
  content: string;
  /** Mentioned accounts, in order of first mention, without duplicates. */
  mentionedAccountIds: string[];
  /** Hashtags as typed (first spelling of each name, case-insensitively). */
  tagNames: string[];
}

function sameHandle(row: AccountRow, name: MentionName, local: boolean): boolean {
  return !row.deletedAt && row.username.toLowerCase() === name.username.toLowerCase() &&
    (local ? row.domain == null : row.domain?.toLowerCase() === name.domain);
}

/** Resolves the mentions of `text` to accounts: stored ones first, then the resolver. */
export async function resolveMentionAccounts(
  db: Executor,
  localDomain: string,
  input: string | ParsedText,
  resolver?: RemoteAccountResolver,
): Promise<Map<string, AccountRow>> {
  const text = parseText(input);
  const local = localDomain.toLowerCase();
  const wanted = new Map<string, MentionName>();
  for (const name of extractMentions(text)) {
    if (wanted.size >= MAX_MENTIONS) break;
    const isLocal = name.domain == null || name.domain === local;
    wanted.set(mentionKey(name), isLocal ? { username: name.username, domain: null } : name);
  }
  const found = new Map<string, AccountRow>();
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
    const row = rows.find((r) => sameHandle(r, name, name.domain == null));
    if (row) {
      found.set(key, row);
    } else if (name.domain != null && resolver && lookups < MAX_REMOTE_LOOKUPS) {
      lookups++;
      const fetched = await resolver(`${name.username}@${name.domain}`).catch(() => null);
      if (fetched && !fetched.deletedAt) found.set(key, fetched);
    }
  }
  // A local mention written with our own domain resolves like the bare one.
  for (const name of extractMentions(text)) {
    if (name.domain === local) {
      const bare = found.get(mentionKey({ username: name.username, domain: null }));
      if (bare) found.set(mentionKey(name), bare);
    }
  }
  return found;
}

/** Renders a local author's text with its resolved mentions. */
export function composeText(
  origin: string,
  input: string | ParsedText,
  mentioned: Map<string, AccountRow>,
): ComposedText {
  const text = parseText(input);
  const targets = new Map<string, MentionTarget>();
  for (const [key, row] of mentioned) {
    targets.set(key, { url: row.url ?? row.uri, display: row.username });
  }
  const ids: string[] = [];
  for (const name of extractMentions(text)) {
    const row = mentioned.get(mentionKey(name));
    if (row && !ids.includes(row.id)) ids.push(row.id);
  }
  const seen = new Set<string>();
  const tagNames: string[] = [];
  for (const tag of extractHashtags(text)) {
    const key = tag.toLowerCase();
    if (seen.has(key) || [...tag].length > 100) continue;
    seen.add(key);
    tagNames.push(tag);
  }
  return {
    content: textToHtml(text, { origin, multiline: true, mentions: targets }),
    mentionedAccountIds: ids,
    tagNames,
  };
}
