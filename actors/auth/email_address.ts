/**
 * The shape check of an e-mail address for address changes. It matches the
 * one actors/accounts/accounts.ts applies at account creation: loose on purpose (the
 * confirmation mail is the real test), no spaces or control characters.
 */

/** Longest address accepted, the same bound as at account creation. */
export const EMAIL_MAX = 320;

const EMAIL_PATTERN = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;
/** The same without the dot in the host (`admin@localhost`). */
const DOTLESS_EMAIL_PATTERN = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u;

/**
 * Whether a string looks like an e-mail address (length checked first: the
 * pattern backtracks). `dotlessHost` accepts a host without a dot
 * (`admin@localhost`), as tootctl does for development setups; sign-ups
 * keep requiring one.
 */
export function isValidEmail(email: string, options: { dotlessHost?: boolean } = {}): boolean {
  if (email.length > EMAIL_MAX) return false;
  return (options.dotlessHost ? DOTLESS_EMAIL_PATTERN : EMAIL_PATTERN).test(email);
}
