/**
 * Matching statuses against an account's filters: each filter's keywords
 * compiled once into regular expressions (case-insensitive; whole-word
 * keywords bounded by Unicode word boundaries, as Mastodon's `\b` around a
 * keyword that starts or ends with a word character), plus the ids of the
 * statuses it names. The text matched is Mastodon's `searchable_text`: the
 * content warning, the content as plain text, poll options and media
 * descriptions.
 *
 * Keywords are escaped, never interpreted, so a keyword cannot make a
 * pathological expression; their number and length are bounded (rules.ts).
 */
import type { FilterRow, FilterWithRules } from "./filters.ts";
import type { FilterContext } from "./rules.ts";

/** A filter ready to match. */
export interface CompiledFilter {
  filter: FilterRow;
  contexts: ReadonlySet<string>;
  /** Epoch milliseconds after which it no longer applies; null: never expires. */
  expiresAt: number | null;
  /** All keywords at once (a cheap first test); null without keywords. */
  any: RegExp | null;
  keywords: { keyword: string; regex: RegExp }[];
  statusIds: ReadonlySet<string>;
}

/** One filter a status matched, and why. */
export interface FilterMatch {
  filter: FilterRow;
  keywordMatches: string[] | null;
  statusMatches: string[] | null;
}

/** What the matcher needs of a status (for a boost: the boosted status's text). */
export interface MatchTarget {
  /** The shown status's id and, for a boost, the boosted status's id. */
  ids: readonly string[];
  /** The text to match, built only when some filter has keywords. */
  text: () => string;
}

/** Ruby's [[:word:]]: letters, marks, decimal digits and connector punctuation. */
const WORD = String.raw`[\p{L}\p{M}\p{Nd}\p{Pc}]`;
const STARTS_WITH_WORD = new RegExp(`^${WORD}`, "u");
const ENDS_WITH_WORD = new RegExp(`${WORD}$`, "u");

/** The characters that mean something in a Unicode-mode expression. */
function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** The expression's source for one keyword. */
export function keywordSource(keyword: string, wholeWord: boolean): string {
  const escaped = escapeRegex(keyword);
  if (!wholeWord) return escaped;
  const start = STARTS_WITH_WORD.test(keyword) ? `(?<!${WORD})` : "";
  const end = ENDS_WITH_WORD.test(keyword) ? `(?!${WORD})` : "";
  return `${start}${escaped}${end}`;
}

/** A keyword's expression, or null if it cannot be built (then it never matches). */
function compileKeyword(keyword: string, wholeWord: boolean): RegExp | null {
  try {
    return new RegExp(keywordSource(keyword, wholeWord), "iu");
  } catch {
    // Escaped text always compiles; this only guards every timeline of the
    // owner against a keyword stored by other means (hand-written SQL).
    return null;
  }
}

/** Compiles an account's filters for matching. */
export function compileFilters(list: readonly FilterWithRules[]): CompiledFilter[] {
  return list.map(({ filter, keywords, statuses }) => {
    const compiled = keywords.flatMap((k) => {
      const regex = compileKeyword(k.keyword, k.wholeWord);
      return regex ? [{ keyword: k.keyword, regex }] : [];
    });
    return {
      filter,
      contexts: new Set(filter.context),
      expiresAt: filter.expiresAt ? filter.expiresAt.getTime() : null,
      any: compiled.length > 0
        ? new RegExp(compiled.map((k) => k.regex.source).join("|"), "iu")
        : null,
      keywords: compiled,
      statusIds: new Set(statuses.map((s) => s.statusId)),
    };
  });
}

/** The text filters read: spoiler, content, poll options, media descriptions. */
export function searchableText(parts: {
  spoilerText: string;
  plainContent: string;
  pollOptions?: readonly string[];
  mediaDescriptions?: readonly (string | null)[];
}): string {
  return [
    parts.spoilerText,
    parts.plainContent,
    (parts.pollOptions ?? []).join("\n\n"),
    (parts.mediaDescriptions ?? []).filter((d): d is string => !!d).join("\n\n"),
  ].filter((s) => s !== "").join("\n\n");
}

/**
 * The filters `target` matches that apply now: in `context` when one is
 * given, in any context otherwise (where a status is shown outside every
 * context, Mastodon reports all its matches).
 */
export function matchFilters(
  filters: readonly CompiledFilter[],
  target: MatchTarget,
  context: FilterContext | null,
  now = Date.now(),
): FilterMatch[] {
  const out: FilterMatch[] = [];
  let text: string | undefined;
  for (const f of filters) {
    if (f.expiresAt != null && f.expiresAt <= now) continue;
    if (context && !f.contexts.has(context)) continue;
    let keywordMatches: string[] | null = null;
    if (f.any) {
      text ??= target.text();
      if (f.any.test(text)) {
        keywordMatches = f.keywords.filter((k) => k.regex.test(text!)).map((k) => k.keyword);
      }
    }
    const statusMatches = target.ids.filter((id) => f.statusIds.has(id));
    if (!keywordMatches?.length && statusMatches.length === 0) continue;
    out.push({
      filter: f.filter,
      keywordMatches: keywordMatches?.length ? keywordMatches : null,
      statusMatches: statusMatches.length ? statusMatches : null,
    });
  }
  return out;
}
