/**
 * The small checks every reader of remote documents makes, in one place:
 * whether a value is an http(s) URL we may keep, and whether two URLs are on
 * the same origin (what decides who may speak for an object).
 */

/** The longest URL kept from a remote document. */
export const MAX_URL_LENGTH = 2_048;

/** An http(s) URL as a string, at most `maxLength` characters; anything else is null. */
export function webUrl(
  value: URL | string | null | undefined,
  maxLength = MAX_URL_LENGTH,
): string | null {
  if (value == null) return null;
  const href = typeof value === "string" ? value : value.href;
  if (href.length > maxLength * 4) return null;
  try {
    const url = new URL(href);
    if (url.href.length > maxLength) return null;
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/** Whether two URLs are on the same origin (false when either is not a URL). */
export function sameOrigin(a: URL | string, b: URL | string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
