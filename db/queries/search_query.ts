/**
 * The status search language, read the way Mastodon's search box reads it:
 * words and "quoted phrases" must all occur, `-word` and `-"phrase"` must
 * not, and `prefix:value` operators narrow the result:
 *
 * - `from:user`, `from:user@domain`, `from:me` (author; `-from:` excludes)
 * - `has:media|image|video|audio|poll|link|embed` (`-has:` excludes)
 * - `is:reply|sensitive` (`-is:` excludes)
 * - `language:xx` (`-language:` excludes)
 * - `before:YYYY-MM-DD`, `after:YYYY-MM-DD`, `during:YYYY-MM-DD` (UTC days;
 *   `after:` starts with the next day, as Mastodon's rounding does)
 * - `in:all|library|public`: everything the user may search (default), only
 *   statuses the user wrote or interacted with, or only public statuses of
 *   accounts that allow being indexed.
 *
 * Decisions:
 * - A token that looks like an operator but is not one we know (an unknown
 *   prefix, an unknown `has:` value, a date that is not one) is searched as
 *   plain words. Mastodon answers 422 for some of these; a search box that
 *   finds nothing is friendlier than one that fails, and nothing is lost.
 * - Words are matched whole (no stemming, language-neutral): the index uses
 *   PostgreSQL's 'simple' configuration.
 * - Bounded: at most {@link MAX_TOKENS} tokens are read; the rest is ignored.
 */

/** A text condition: words (all of them) or a phrase, possibly excluded. */
export interface TextTerm {
  text: string;
  phrase: boolean;
  negated: boolean;
}

/** Values of `has:`. */
export type HasValue = "media" | "image" | "video" | "audio" | "poll" | "link" | "embed";
/** Values of `is:`. */
export type IsValue = "reply" | "sensitive";
/** Values of `in:`. */
export type SearchScope = "all" | "library" | "public";

/** An operator with its value, possibly negated. */
export interface Filter<T> {
  value: T;
  negated: boolean;
}

/** A parsed query. */
export interface ParsedSearch {
  terms: TextTerm[];
  /** Handles as written (`me`, `user`, `user@domain`); the caller resolves them. */
  from: Filter<string>[];
  has: Filter<HasValue>[];
  is: Filter<IsValue>[];
  language: Filter<string>[];
  /** Only statuses posted before this instant. */
  before: Date | null;
  /** Only statuses posted at or after this instant. */
  after: Date | null;
  scope: SearchScope;
}

/** Tokens read from one query; no sensible query has more. */
export const MAX_TOKENS = 32;

const HAS: readonly HasValue[] = ["media", "image", "video", "audio", "poll", "link", "embed"];
const IS: readonly IsValue[] = ["reply", "sensitive"];
const SCOPES: readonly SearchScope[] = ["all", "library", "public"];
const DAY_MS = 86_400_000;

/** A `YYYY-MM-DD` day as the UTC instant it starts at, or null. */
function parseDay(value: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return null;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  // Rejects 2024-02-31 and the like, which Date would roll over.
  return date.getUTCDate() === Number(m[3]) && date.getUTCMonth() === Number(m[2]) - 1
    ? date
    : null;
}

/** Splits a query into tokens: runs of non-space, or a quoted phrase with its sign. */
function tokenize(q: string): { sign: "" | "-" | "+"; body: string; quoted: boolean }[] {
  const out: { sign: "" | "-" | "+"; body: string; quoted: boolean }[] = [];
  const re = /([+-]?)"([^"]*)"?|(\S+)/g;
  for (const m of q.matchAll(re)) {
    if (out.length >= MAX_TOKENS) break;
    if (m[3] !== undefined) {
      const raw = m[3];
      const sign = raw[0] === "-" || raw[0] === "+" ? raw[0] as "-" | "+" : "";
      out.push({ sign, body: sign ? raw.slice(1) : raw, quoted: false });
    } else {
      out.push({ sign: m[1] as "" | "-" | "+", body: m[2], quoted: true });
    }
  }
  return out;
}

/** Reads a query; never throws. */
export function parseSearch(q: string): ParsedSearch {
  const parsed: ParsedSearch = {
    terms: [],
    from: [],
    has: [],
    is: [],
    language: [],
    before: null,
    after: null,
    scope: "all",
  };
  const words: string[] = [];
  const notWords: string[] = [];
  for (const { sign, body, quoted } of tokenize(q)) {
    const negated = sign === "-";
    if (quoted) {
      if (body.trim()) parsed.terms.push({ text: body.trim(), phrase: true, negated });
      continue;
    }
    if (body === "") continue;
    if (operator(parsed, body, negated)) continue;
    (negated ? notWords : words).push(body);
  }
  // Plain words are one term (all of them must occur); each excluded word its own.
  if (words.length) parsed.terms.unshift({ text: words.join(" "), phrase: false, negated: false });
  for (const w of notWords) parsed.terms.push({ text: w, phrase: false, negated: true });
  return parsed;
}

/** Applies `prefix:value` to `parsed` when it is an operator we know; false otherwise. */
function operator(parsed: ParsedSearch, body: string, negated: boolean): boolean {
  const colon = body.indexOf(":");
  if (colon <= 0) return false;
  const prefix = body.slice(0, colon).toLowerCase();
  const value = body.slice(colon + 1);
  if (value === "") return false;
  const lower = value.toLowerCase();
  switch (prefix) {
    case "from":
      parsed.from.push({ value: value.replace(/^@/, ""), negated });
      return true;
    case "has":
      if (!HAS.includes(lower as HasValue)) return false;
      parsed.has.push({ value: lower as HasValue, negated });
      return true;
    case "is":
      if (!IS.includes(lower as IsValue)) return false;
      parsed.is.push({ value: lower as IsValue, negated });
      return true;
    case "language":
      if (!/^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/i.test(value)) return false;
      parsed.language.push({ value: lower, negated });
      return true;
    case "in":
      if (negated || !SCOPES.includes(lower as SearchScope)) return false;
      parsed.scope = lower as SearchScope;
      return true;
    case "before":
    case "after":
    case "during": {
      const day = parseDay(value);
      if (!day || negated) return false;
      const next = new Date(day.getTime() + DAY_MS);
      if (prefix !== "after") {
        parsed.before = earlier(parsed.before, prefix === "during" ? next : day);
      }
      if (prefix !== "before") parsed.after = later(parsed.after, prefix === "during" ? day : next);
      return true;
    }
    default:
      return false;
  }
}

function earlier(a: Date | null, b: Date): Date {
  return a && a < b ? a : b;
}

function later(a: Date | null, b: Date): Date {
  return a && a > b ? a : b;
}

/** Whether the query asks anything of the text (some word or phrase to find). */
export function hasPositiveText(parsed: ParsedSearch): boolean {
  return parsed.terms.some((t) => !t.negated);
}

/** Whether the query asks nothing at all (only punctuation or empty quotes): it finds nothing. */
export function asksNothing(parsed: ParsedSearch): boolean {
  return parsed.terms.length === 0 && parsed.from.length === 0 && parsed.has.length === 0 &&
    parsed.is.length === 0 && parsed.language.length === 0 && parsed.before == null &&
    parsed.after == null && parsed.scope === "all";
}
