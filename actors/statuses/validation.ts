/**
 * The input rules shared by posting, scheduling and editing: text length,
 * attachments, poll shape, language and visibility, checked by
 * {@link checkStatusInput} for all three. Messages follow Mastodon's.
 */
import ISO6391 from "iso-639-1";
import type { Config } from "../../config.ts";
import { MAX_URL_LENGTH, type ParsedText, parseText } from "../formatting/parsed_text.ts";
import { invalid, StatusError } from "./errors.ts";
import { isVisibility, type Visibility } from "../../model/visibility.ts";
import { isQuotePolicy, type QuotePolicy } from "../../model/quote_policy.ts";

/** A poll as asked for by a local author. */
export interface PollInput {
  options: string[];
  /** Seconds from now. */
  expiresIn: number;
  multiple: boolean;
  hideTotals: boolean;
}

/**
 * Length as Mastodon's StatusLengthValidator counts it: the text and the
 * content warning together, links as `charactersReservedPerUrl` (up to
 * twitter-text's 4,096 characters; a longer URL is no link and counts in
 * full), remote mentions by username only.
 */
export function statusLength(
  config: Config,
  text: string | ParsedText,
  spoilerText: string,
  stopAbove = Infinity,
): number {
  return parseText(text).countableLength(config.limits.charactersReservedPerUrl, stopAbove) +
    [...spoilerText].length;
}

/**
 * Refuses blank or overlong text (blank is fine with media or a poll). The
 * command renders the same parse afterwards: what is counted here is what
 * it links.
 */
export function checkText(
  config: Config,
  text: ParsedText,
  spoilerText: string,
  hasMediaOrPoll: boolean,
): void {
  if (text.source.trim() === "" && !hasMediaOrPoll) throw invalid("Text can't be blank");
  const max = config.limits.maxStatusCharacters;
  // No text longer than this can fit, however many of its characters are
  // links (each counts `perUrl` up to MAX_URL_LENGTH long): refuse it before
  // parsing, which costs time in proportion to its length.
  const perUrl = config.limits.charactersReservedPerUrl;
  const ceiling = max + Math.ceil(max / Math.max(1, perUrl)) * MAX_URL_LENGTH;
  if (
    text.source.length + spoilerText.length > ceiling ||
    statusLength(config, text, spoilerText, max) > max
  ) {
    throw invalid(`Text character limit of ${max} exceeded`);
  }
}

/** What every status input is checked for, whether posted, scheduled or edited. */
export interface StatusContentInput {
  /** The text, parsed (actors/formatting/parsed_text.ts): the command renders the same parse. */
  text: ParsedText;
  spoilerText: string;
  /** How many attachments the status will have. */
  mediaCount: number;
  /** A poll to set (checked); null or absent when none is given. */
  poll?: PollInput | null;
  /** Whether the status will have a poll: a new one, or one an edit keeps. */
  hasPoll: boolean;
  /** A language code to check; null or absent is passed through. */
  language?: string | null;
}

/**
 * The checks posting, scheduling and editing share, in Mastodon's order:
 * the number of attachments, a poll with media, the poll, the text and the
 * language. Throws a 422 {@link StatusError}; returns the language
 * normalized (or as given when null or absent).
 */
export function checkStatusInput(
  config: Config,
  input: StatusContentInput,
): string | null | undefined {
  const { maxMediaAttachments } = config.limits;
  if (input.mediaCount > maxMediaAttachments) {
    throw new StatusError(422, `Cannot attach more than ${maxMediaAttachments} files`);
  }
  if (input.poll) checkPoll(config, input.poll);
  checkText(config, input.text, input.spoilerText, input.mediaCount > 0 || input.hasPoll);
  return input.language == null ? input.language : checkLanguage(input.language);
}

/** Refuses polls outside the configured bounds (Mastodon's PollValidator). */
export function checkPoll(config: Config, poll: PollInput): void {
  const { maxPollOptions, maxPollOptionCharacters, minPollExpiration, maxPollExpiration } =
    config.limits;
  if (poll.options.length < 2) throw invalid("Poll options must have more than one item");
  if (poll.options.length > maxPollOptions) {
    throw invalid(`Poll options can't contain more than ${maxPollOptions} items`);
  }
  if (poll.options.some((o) => o.trim() === "")) throw invalid("Poll options can't be blank");
  if (poll.options.some((o) => [...o].length > maxPollOptionCharacters)) {
    throw invalid(
      `Poll options cannot be longer than ${maxPollOptionCharacters} characters each`,
    );
  }
  const normalized = poll.options.map((o) => o.trim());
  if (new Set(normalized).size !== normalized.length) {
    throw invalid("Poll options contain duplicate items");
  }
  if (!Number.isSafeInteger(poll.expiresIn) || poll.expiresIn < minPollExpiration) {
    throw invalid("Poll expires at is too soon");
  }
  if (poll.expiresIn > maxPollExpiration) throw invalid("Poll expires at is too far in the future");
}

/** An ISO 639-1 code (optionally with a region, `pt-BR`), normalized; null when it is none. */
export function normalizeLanguage(language: string): string | null {
  const match = /^([a-zA-Z]{2})(?:[-_]([a-zA-Z]{2,4}))?$/.exec(language.trim());
  if (!match || !ISO6391.validate(match[1].toLowerCase())) return null;
  const base = match[1].toLowerCase();
  return match[2] ? `${base}-${match[2].toUpperCase()}` : base;
}

/** An ISO 639-1 code (optionally with a region, `pt-BR`), normalized; 422 otherwise. */
export function checkLanguage(language: string): string {
  const code = normalizeLanguage(language);
  if (!code) throw invalid("Language is not a valid ISO 639-1 code");
  return code;
}

/** A visibility name; 422 otherwise. */
export function checkVisibility(value: string): Visibility {
  if (!isVisibility(value)) throw invalid("Visibility is not included in the list");
  return value;
}

/** A quote approval policy; 422 otherwise. */
export function checkQuotePolicy(value: string): QuotePolicy {
  if (!isQuotePolicy(value)) throw invalid("Quote approval policy is not included in the list");
  return value;
}
