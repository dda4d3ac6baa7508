/** Rookery's own release, and the Mastodon API level it is compatible with. */
export const ROOKERY_VERSION = "0.1.0";
/** The Mastodon release whose API we implement. */
export const MASTODON_COMPAT_VERSION = "4.7.6";
/** `api_versions.mastodon` of Mastodon 4.7. */
export const MASTODON_API_VERSION = 11;
/** What `version` in the instance API says; clients parse the leading release. */
export const VERSION_STRING = `${MASTODON_COMPAT_VERSION} (compatible; Rookery ${ROOKERY_VERSION})`;
export const SOURCE_URL = "https://github.com/rookery-social/rookery";

/**
 * The User-Agent of every request this server makes (deliveries, fetches,
 * WebFinger, link previews, Web Push): a product token and our URL, as
 * Mastodon sends `Mastodon/4.x (…; +https://domain/)`, so operators can
 * allowlist and debug by it. `origin` is ORIGIN (no trailing slash).
 */
export function productUserAgent(origin: string): string {
  return `Rookery/${ROOKERY_VERSION} (+${origin}/)`;
}
