/**
 * Mastodon's OAuth scopes (4.7: 4.5's and `read:collections`, `write:collections`) and their hierarchy: `read` covers every
 * `read:*`, `write` every `write:*`, the deprecated `follow` covers reading
 * and writing blocks, follows and mutes, and `admin:read`/`admin:write`
 * cover their `admin:…:*` families. Used by app registration, the token
 * endpoint, the scope middleware and the admin command line.
 */

const READ = [
  "accounts",
  "blocks",
  "bookmarks",
  "collections",
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
  "collections",
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

/** The top-level scopes; `follow` is deprecated but Mastodon still accepts it. */
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

/** What the deprecated `follow` scope stands for. */
const FOLLOW_COVERS = new Set([
  "read:blocks",
  "read:follows",
  "read:mutes",
  "write:blocks",
  "write:follows",
  "write:mutes",
]);

export function isKnownScope(scope: string): boolean {
  return KNOWN.has(scope);
}

/**
 * Splits a scope string (space-separated as in OAuth; "+" from query strings
 * and commas are tolerated) into distinct scopes, or lists the unknown ones.
 */
export function parseScopes(
  raw: string,
): { ok: true; scopes: string[] } | { ok: false; unknown: string[] } {
  const parts = [...new Set(raw.split(/[\s,+]+/).filter(Boolean))];
  const unknown = parts.filter((s) => !KNOWN.has(s));
  return unknown.length ? { ok: false, unknown } : { ok: true, scopes: parts };
}

/** Whether one granted scope covers a required one. */
function covers(granted: string, required: string): boolean {
  if (granted === required) return true;
  if (granted === "follow") return FOLLOW_COVERS.has(required);
  // read ⊃ read:x, write ⊃ write:x, admin:read ⊃ admin:read:x
  return required.startsWith(`${granted}:`);
}

/** Whether a token's scopes allow an action needing any one of `required`. */
export function scopesAllow(granted: readonly string[], required: readonly string[]): boolean {
  return required.some((r) => granted.some((g) => covers(g, r)));
}

/**
 * Whether every requested scope is within the registered ones (an app that
 * registered `read` may ask for `read:accounts`, not for `write`).
 */
export function scopesWithin(requested: readonly string[], registered: readonly string[]): boolean {
  return requested.every((r) => registered.some((g) => covers(g, r)));
}
