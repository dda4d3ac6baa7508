/**
 * Errors of the status commands. Each carries the HTTP status and the exact
 * message Mastodon answers, so routes map them without knowing the rules.
 */

/** A refused status command: 404 for what the caller may not see, 422 for bad input. */
export class StatusError extends Error {
  constructor(readonly status: 403 | 404 | 422, message: string) {
    super(message);
  }
}

/** 422 with Rails' "Validation failed: …" wording. */
export function invalid(reason: string): StatusError {
  return new StatusError(422, `Validation failed: ${reason}`);
}

/** Mastodon's answer for a reply to a status one cannot see. */
export const REPLY_NOT_FOUND = "The post you are trying to reply to does not appear to exist.";
/** Mastodon's answer to an account that has moved (its login is no longer functional). */
export const MOVED_ACCOUNT = "Your login is currently disabled";
/** The same for quotes. */
export const QUOTE_NOT_FOUND = "The post you are trying to quote does not appear to exist.";

/**
 * Mastodon's DisallowedHashtagsValidator: a local status may not use a tag
 * staff made unusable (Admin::Tag `usable: false`).
 */
export function disallowedHashtags(names: readonly string[]): StatusError {
  const noun = names.length === 1 ? "hashtag" : "hashtags";
  return invalid(`Text contained the disallowed ${noun}: ${names.join(", ")}`);
}

/**
 * Refuses a post by an account that may not post here: a remote one, or a
 * local one that moved (Mastodon's API refuses it: User#functional? is false).
 */
export function refuseUnlessLocalPoster(
  account: { domain: string | null; movedToAccountId: string | null },
): void {
  if (account.domain != null) throw new StatusError(422, "Validation failed: not a local account");
  if (account.movedToAccountId) throw new StatusError(403, MOVED_ACCOUNT);
}

/**
 * Mastodon 4.5's `allowed_mentions` refusal: the post would reach accounts
 * the client did not list (PostStatusService::UnexpectedMentionsError). The
 * route answers 422 with the accounts as `unexpected_accounts`.
 */
export class UnexpectedMentionsError extends Error {
  constructor(readonly accountIds: string[]) {
    super("Post would be sent to unexpected accounts");
  }
}

/**
 * Refuses mentions outside `allowed` (null or absent: no check), in the
 * order they were written. The author mentioning themself reaches no one
 * else, so it is never unexpected.
 */
export function checkAllowedMentions(
  allowed: readonly string[] | null | undefined,
  mentioned: readonly string[],
  authorId: string,
): void {
  if (allowed == null) return;
  // Mastodon compares integers (`map(&:to_i)`): "012" is 12.
  const canonical = (id: string) => /^\d{1,19}$/.test(id) ? BigInt(id).toString() : id;
  const expected = new Set(allowed.map(canonical));
  const unexpected = mentioned.filter((id) => id !== authorId && !expected.has(canonical(id)));
  if (unexpected.length) throw new UnexpectedMentionsError(unexpected);
}
