/**
 * Mastodon's OAuth scopes (4.5), for checking the scopes an operator asks for
 * when minting a token from the command line.
 */

const READ = [
  "accounts",
  "blocks",
  "bookmarks",
  "favourites",
  "filters",
  "follows",
  "lists",
  "mutes",
  "notifications",
  "search",
  "statuses",
];
const WRITE = [
  "accounts",
  "blocks",
  "bookmarks",
  "conversations",
  "favourites",
  "filters",
  "follows",
  "lists",
  "media",
  "mutes",
  "notifications",
  "reports",
  "statuses",
];
const ADMIN = [
  "accounts",
  "reports",
  "domain_allows",
  "domain_blocks",
  "ip_blocks",
  "email_domain_blocks",
  "canonical_email_blocks",
];

/** The top-level scopes; `follow` is deprecated but still accepted by Mastodon. */
export const TOP_LEVEL_SCOPES = [
  "read",
  "write",
  "follow",
  "push",
  "profile",
  "admin:read",
  "admin:write",
] as const;

/** Every scope Mastodon knows, top-level and granular. */
export const ALL_SCOPES: readonly string[] = [
  ...TOP_LEVEL_SCOPES,
  ...READ.map((s) => `read:${s}`),
  ...WRITE.map((s) => `write:${s}`),
  ...ADMIN.map((s) => `admin:read:${s}`),
  ...ADMIN.map((s) => `admin:write:${s}`),
];

const KNOWN = new Set(ALL_SCOPES);

/**
 * Splits a scope string (space-separated as in OAuth; commas and "+" are
 * tolerated) into distinct scopes, or lists the unknown ones.
 */
export function parseScopes(
  raw: string,
): { ok: true; scopes: string[] } | { ok: false; unknown: string[] } {
  const parts = [...new Set(raw.split(/[\s,+]+/).filter(Boolean))];
  const unknown = parts.filter((s) => !KNOWN.has(s));
  return unknown.length ? { ok: false, unknown } : { ok: true, scopes: parts };
}
