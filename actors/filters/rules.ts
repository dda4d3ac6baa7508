/**
 * What a filter may be: its contexts and actions, Mastodon's lengths, and
 * our bounds against abuse (every timeline request of the owner matches
 * every keyword, so their number is bounded per filter and per account).
 */
import { Problems } from "../../model/errors.ts";

/** Where a filter applies (Mastodon's CustomFilter::VALID_CONTEXTS). */
export const FILTER_CONTEXTS = ["home", "notifications", "public", "thread", "account"] as const;
export type FilterContext = typeof FILTER_CONTEXTS[number];

/** What a match does: warn (collapse with a warning), hide (leave out), blur (media only). */
export const FILTER_ACTIONS = ["warn", "hide", "blur"] as const;
export type FilterAction = typeof FILTER_ACTIONS[number];

/** Mastodon's TITLE_LENGTH_LIMIT and KEYWORD_LENGTH_LIMIT. */
export const MAX_TITLE_LENGTH = 256;
export const MAX_KEYWORD_LENGTH = 512;

/** Ours (Mastodon has none): filters per account, keywords and statuses per filter and account. */
export const MAX_FILTERS = 100;
export const MAX_KEYWORDS_PER_FILTER = 100;
/** Every keyword is tried on every status the owner reads: about 5 ms per page at this cap. */
export const MAX_KEYWORDS_PER_ACCOUNT = 1_000;
export const MAX_STATUSES_PER_FILTER = 1_000;

/** The longest expiry accepted, in seconds (about 68 years: a timestamp that cannot overflow). */
export const MAX_EXPIRES_IN = 2 ** 31 - 1;

export function isFilterContext(value: string): value is FilterContext {
  return (FILTER_CONTEXTS as readonly string[]).includes(value);
}

/** Contexts as Mastodon normalizes them: stripped, blanks dropped, duplicates removed. */
export function normalizeContexts(values: readonly string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter((v) => v !== ""))];
}

/** Adds Mastodon's complaints about a title to `problems`. */
export function checkTitle(problems: Problems, title: string): void {
  if (title.trim() === "") problems.add("title", "ERR_BLANK", "can't be blank");
  else if ([...title].length > MAX_TITLE_LENGTH) {
    problems.add(
      "title",
      "ERR_TOO_LONG",
      `is too long (maximum is ${MAX_TITLE_LENGTH} characters)`,
    );
  }
}

/** Adds Mastodon's complaints about a context list ("Context can't be blank", …). */
export function checkContexts(problems: Problems, contexts: readonly string[]): void {
  if (contexts.length === 0) problems.add("context", "ERR_BLANK", "can't be blank");
  if (contexts.length === 0 || !contexts.every(isFilterContext)) {
    problems.add("context", "ERR_INVALID", "None or invalid context supplied");
  }
}

/** Adds a complaint about an unknown action. */
export function checkAction(problems: Problems, action: string): void {
  if (!(FILTER_ACTIONS as readonly string[]).includes(action)) {
    problems.add("filter_action", "ERR_INCLUSION", "is not included in the list");
  }
}

/** Adds Mastodon's complaints about a keyword, under `field`. */
export function checkKeyword(problems: Problems, keyword: string, field = "keyword"): void {
  // Nested keywords read as Rails says them: "Keywords keyword can't be blank".
  const prefix = field === "keywords" ? "keyword " : "";
  if (keyword.trim() === "") problems.add(field, "ERR_BLANK", `${prefix}can't be blank`);
  else if ([...keyword].length > MAX_KEYWORD_LENGTH) {
    problems.add(
      field,
      "ERR_TOO_LONG",
      `${prefix}is too long (maximum is ${MAX_KEYWORD_LENGTH} characters)`,
    );
  }
}

/** The expiry time for `expires_in` seconds from now (null: never). */
export function expiryFrom(expiresIn: number | null, now = Date.now()): Date | null {
  return expiresIn == null ? null : new Date(now + expiresIn * 1000);
}

/** A limit error on the whole record (Rails' `base`). */
export function limitReached(message: string): never {
  const problems = new Problems();
  problems.add("base", "ERR_LIMIT", message);
  problems.throwIfAny();
  throw new Error("unreachable");
}
