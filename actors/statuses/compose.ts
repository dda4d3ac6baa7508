/**
 * Turns what a local author typed into what is stored, for posts and edits
 * alike: the HTML, the accounts mentioned and the hashtags used, all read
 * from the one parse of the text (actors/formatting/parsed_text.ts) whose
 * length was checked and whose mentions were resolved
 * (actors/formatting/mentions.ts).
 */
import type { Executor } from "../../db/connection.ts";
import { unusableTags } from "../../db/queries/tags.ts";
import { type MentionedAccount, mentionTargets } from "../formatting/mentions.ts";
import { mentionKey, type ParsedText } from "../formatting/parsed_text.ts";
import { textToHtml } from "../formatting/text_to_html.ts";
import { disallowedHashtags } from "./errors.ts";

/** The longest hashtag name recorded (Mastodon's Tag name limit). */
const MAX_TAG_LENGTH = 100;

/** The stored form of a local author's text. */
export interface ComposedText {
  content: string;
  /** Mentioned accounts, in order of first mention, without duplicates. */
  mentionedAccountIds: string[];
  /** Those of them that live here (they get notifications). */
  localAccountIds: Set<string>;
  /** Hashtags as typed (first spelling of each name, case-insensitively). */
  tagNames: string[];
}

/** Renders a local author's text with its resolved mentions. */
export function composeText(
  origin: string,
  text: ParsedText,
  mentioned: ReadonlyMap<string, MentionedAccount>,
): ComposedText {
  const ids: string[] = [];
  const localAccountIds = new Set<string>();
  for (const { name } of text.mentions) {
    const row = mentioned.get(mentionKey(name));
    if (!row || ids.includes(row.id)) continue;
    ids.push(row.id);
    if (row.domain == null) localAccountIds.add(row.id);
  }
  const seen = new Set<string>();
  const tagNames: string[] = [];
  for (const { tag } of text.hashtags) {
    const key = tag.toLowerCase();
    if (seen.has(key) || [...tag].length > MAX_TAG_LENGTH) continue;
    seen.add(key);
    tagNames.push(tag);
  }
  const mentions = mentionTargets(mentioned);
  return {
    content: textToHtml(text, { origin, multiline: true, mentions }),
    mentionedAccountIds: ids,
    localAccountIds,
    tagNames,
  };
}

/** Refuses hashtags staff made unusable (Mastodon's DisallowedHashtagsValidator). */
export async function checkUsableTags(db: Executor, tagNames: readonly string[]): Promise<void> {
  const unusable = await unusableTags(db, tagNames);
  if (unusable.length) throw disallowedHashtags(unusable);
}
