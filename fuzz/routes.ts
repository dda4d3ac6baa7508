/**
 * Every write route of the API (the `app.post/put/patch/delete` of
 * api/routes/*.ts) and both inboxes, with the parameter names each one reads
 * so that generated bodies hit real code paths and not only the "unknown
 * key" one. Path placeholders (`{status}`) are filled with a real id of the
 * fuzz user's objects or with junk.
 */

/** A route the fuzzer sends bodies to. */
export interface FuzzRoute {
  method: "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path with `{kind}` placeholders, filled from the fixture's ids or junk. */
  path: string;
  /** `api`: Mastodon API and OAuth; `inbox`: ActivityPub inboxes (sent signed and unsigned). */
  kind: "api" | "inbox";
  /** Parameter names the handler reads (a few strange ones get added by the generators). */
  fields: string[];
  /** Sent without the bearer token (OAuth endpoints authenticate with the body). */
  anonymous?: boolean;
}

const STATUS_FIELDS = [
  "status",
  "media_ids",
  "poll",
  "in_reply_to_id",
  "sensitive",
  "spoiler_text",
  "visibility",
  "language",
  "scheduled_at",
  "quoted_status_id",
  "quote_approval_policy",
  "interaction_policy",
  "media_attributes",
];
const DOMAIN_BLOCK_FIELDS = [
  "domain",
  "severity",
  "reject_media",
  "reject_reports",
  "private_comment",
  "public_comment",
  "obfuscate",
];
const FILTER_FIELDS = ["title", "context", "filter_action", "expires_in", "keywords_attributes"];
const V1_FILTER_FIELDS = ["phrase", "context", "irreversible", "whole_word", "expires_in"];
const PROFILE_FIELDS = [
  "display_name",
  "note",
  "locked",
  "bot",
  "discoverable",
  "hide_collections",
  "indexable",
  "fields_attributes",
  "source",
  "avatar",
  "header",
  "attribution_domains",
];
const POLICY_FIELDS = [
  "for_not_following",
  "for_not_followers",
  "for_new_accounts",
  "for_private_mentions",
  "for_limited_accounts",
  "filter_not_following",
  "filter_not_followers",
  "filter_new_accounts",
  "filter_private_mentions",
];
const OAUTH_FIELDS = [
  "grant_type",
  "code",
  "client_id",
  "client_secret",
  "redirect_uri",
  "scope",
  "code_verifier",
  "username",
  "password",
  "token",
  "response_type",
  "state",
  "code_challenge",
  "code_challenge_method",
  "force_login",
  "authenticity_token",
  "decision",
];

function api(
  method: FuzzRoute["method"],
  path: string,
  fields: string[] = [],
  anonymous = false,
): FuzzRoute {
  return { method, path, kind: "api", fields, anonymous };
}

const statusActions = [
  "reblog",
  "unreblog",
  "favourite",
  "unfavourite",
  "bookmark",
  "unbookmark",
  "mute",
  "unmute",
  "pin",
  "unpin",
].map((a) => api("POST", `/api/v1/statuses/{status}/${a}`, ["visibility"]));

const accountActions = [
  "follow",
  "unfollow",
  "remove_from_followers",
  "block",
  "unblock",
  "mute",
  "unmute",
  "endorse",
  "pin",
  "unendorse",
  "unpin",
  "note",
].map((a) =>
  api("POST", `/api/v1/accounts/{account}/${a}`, [
    "reblogs",
    "notify",
    "languages",
    "notifications",
    "duration",
    "comment",
  ])
);

const groupedNotifications = ["/api/v2", "/api/v2_alpha"].flatMap((prefix) => [
  api("POST", `${prefix}/notifications/clear`),
  api("POST", `${prefix}/notifications/{group_key}/dismiss`),
]);

const policies = ["/api/v2", "/api/v2_alpha", "/api/v1"].flatMap((prefix) => [
  api("PATCH", `${prefix}/notifications/policy`, POLICY_FIELDS),
  api("PUT", `${prefix}/notifications/policy`, POLICY_FIELDS),
]);

/** The write routes of the API, as registered in api/routes/*.ts. */
export const API_ROUTES: FuzzRoute[] = [
  api("POST", "/api/v1/accounts", [
    "username",
    "email",
    "password",
    "agreement",
    "locale",
    "reason",
    "date_of_birth",
  ]),
  api("PATCH", "/api/v1/accounts/update_credentials", PROFILE_FIELDS),
  api("PUT", "/api/v1/accounts/update_credentials", PROFILE_FIELDS),
  api("DELETE", "/api/v1/profile/avatar"),
  api("DELETE", "/api/v1/profile/header"),
  api("POST", "/api/v1/apps", ["client_name", "redirect_uris", "scopes", "website"], true),
  api("POST", "/api/v1/conversations/{conversation}/read"),
  api("POST", "/api/v1/conversations/{conversation}/unread"),
  api("POST", "/api/v1/announcements/{announcement}/dismiss"),
  api("PUT", "/api/v1/announcements/{announcement}/reactions/{reaction}"),
  api("DELETE", "/api/v1/announcements/{announcement}/reactions/{reaction}"),
  api("DELETE", "/api/v1/conversations/{conversation}"),
  api("POST", "/api/v1/domain_blocks", ["domain"]),
  api("POST", "/api/v1/reports", [
    "account_id",
    "status_ids",
    "comment",
    "forward",
    "forward_to_domains",
    "category",
    "rule_ids",
  ]),
  api("DELETE", "/api/v1/domain_blocks", ["domain"]),
  // Instance domain blocks (staff only: the fuzz user meets the 403).
  api("POST", "/api/v1/admin/domain_blocks", DOMAIN_BLOCK_FIELDS),
  api("PUT", "/api/v1/admin/domain_blocks/{domain_block}", DOMAIN_BLOCK_FIELDS),
  api("DELETE", "/api/v1/admin/domain_blocks/{domain_block}"),
  api("POST", "/api/v1/admin/domain_allows", ["domain"]),
  api("DELETE", "/api/v1/admin/domain_allows/{domain_allow}"),
  api("POST", "/api/v1/emails/confirmations", ["email"]),
  api("POST", "/api/v1/featured_tags", ["name"]),
  api("DELETE", "/api/v1/featured_tags/{featured_tag}"),
  api("POST", "/api/v1/follow_requests/{account}/authorize"),
  api("POST", "/api/v1/follow_requests/{account}/reject"),
  api("POST", "/api/v1/interaction_requests/{interaction_request}/authorize"),
  api("POST", "/api/v1/interaction_requests/{interaction_request}/reject"),
  api("PATCH", "/api/v1/interaction_policies/defaults", [
    "public",
    "unlisted",
    "private",
    "direct",
  ]),
  ...statusActions,
  api("POST", "/api/v1/statuses/{status}/quotes/{status}/revoke"),
  api("POST", "/api/v1/lists", ["title", "replies_policy", "exclusive"]),
  api("PUT", "/api/v1/lists/{list}", ["title", "replies_policy", "exclusive"]),
  api("DELETE", "/api/v1/lists/{list}"),
  api("POST", "/api/v1/lists/{list}/accounts", ["account_ids"]),
  api("DELETE", "/api/v1/lists/{list}/accounts", ["account_ids"]),
  api("POST", "/api/v2/filters", FILTER_FIELDS),
  api("PUT", "/api/v2/filters/{filter}", FILTER_FIELDS),
  api("DELETE", "/api/v2/filters/{filter}"),
  api("POST", "/api/v2/filters/{filter}/keywords", ["keyword", "whole_word"]),
  api("PUT", "/api/v2/filters/keywords/{filter_keyword}", ["keyword", "whole_word"]),
  api("DELETE", "/api/v2/filters/keywords/{filter_keyword}"),
  api("POST", "/api/v2/filters/{filter}/statuses", ["status_id"]),
  api("DELETE", "/api/v2/filters/statuses/{filter_status}"),
  api("POST", "/api/v1/filters", V1_FILTER_FIELDS),
  api("PUT", "/api/v1/filters/{filter_keyword}", V1_FILTER_FIELDS),
  api("DELETE", "/api/v1/filters/{filter_keyword}"),
  api("POST", "/api/v1/markers", ["home", "notifications", "last_read_id"]),
  api("POST", "/api/v2/media", ["file", "thumbnail", "description", "focus"]),
  api("POST", "/api/v1/media", ["file", "thumbnail", "description", "focus"]),
  api("PUT", "/api/v1/media/{media}", ["thumbnail", "description", "focus"]),
  api("DELETE", "/api/v1/media/{media}"),
  ...policies,
  api("POST", "/api/v1/notifications/requests/accept", ["id"]),
  api("POST", "/api/v1/notifications/requests/dismiss", ["id"]),
  api("POST", "/api/v1/notifications/requests/{notification_request}/accept"),
  api("POST", "/api/v1/notifications/requests/{notification_request}/dismiss"),
  api("POST", "/api/v1/notifications/clear"),
  api("POST", "/api/v1/notifications/{notification}/dismiss"),
  ...groupedNotifications,
  api("POST", "/oauth/token", OAUTH_FIELDS, true),
  api("POST", "/oauth/revoke", OAUTH_FIELDS, true),
  api("POST", "/oauth/userinfo"),
  api("POST", "/oauth/authorize", OAUTH_FIELDS, true),
  api("DELETE", "/oauth/authorize", OAUTH_FIELDS, true),
  api("POST", "/api/v1/polls/{poll}/votes", ["choices"]),
  ...accountActions,
  api("PUT", "/api/v1/scheduled_statuses/{scheduled}", ["scheduled_at"]),
  api("DELETE", "/api/v1/scheduled_statuses/{scheduled}"),
  api("POST", "/auth/sign_in", ["login", "password", "email", "authenticity_token"], true),
  api("POST", "/auth/sign_out", ["authenticity_token"], true),
  api("POST", "/api/v1/statuses", STATUS_FIELDS),
  api("PUT", "/api/v1/statuses/{status}", STATUS_FIELDS),
  api("DELETE", "/api/v1/statuses/{status}", ["delete_media"]),
  api("PUT", "/api/v1/statuses/{status}/interaction_policy", [
    "quote_approval_policy",
    "interaction_policy",
  ]),
  api("PATCH", "/api/v1/statuses/{status}/interaction_policy", [
    "quote_approval_policy",
    "interaction_policy",
  ]),
  api("POST", "/api/v1/tags/{tag}/follow"),
  api("POST", "/api/v1/tags/{tag}/unfollow"),
  api("POST", "/api/v1/tags/{tag}/feature"),
  api("POST", "/api/v1/tags/{tag}/unfeature"),
  api("DELETE", "/api/v1/suggestions/{account}"),
  api("POST", "/api/v1/push/subscription", ["subscription", "data", "policy"]),
  api("PUT", "/api/v1/push/subscription", ["data", "policy"]),
  api("DELETE", "/api/v1/push/subscription"),
];

const ACTIVITY_FIELDS = [
  "@context",
  "id",
  "type",
  "actor",
  "object",
  "to",
  "cc",
  "published",
  "content",
  "tag",
  "attachment",
  "signature",
  "target",
  "instrument",
  "result",
];

/** The shared and the personal inbox. */
export const INBOX_ROUTES: FuzzRoute[] = [
  { method: "POST", path: "/inbox", kind: "inbox", fields: ACTIVITY_FIELDS },
  { method: "POST", path: "/users/{username}/inbox", kind: "inbox", fields: ACTIVITY_FIELDS },
];

/** Placeholder values that are never real ids: numbers out of range, traversal, encodings. */
export const JUNK_IDS = [
  "0",
  "-1",
  "1",
  "abc",
  "9223372036854775807",
  "9223372036854775808",
  "99999999999999999999999999999",
  "1e10",
  "0x10",
  "NaN",
  "%00",
  "%FF%FE",
  "..%2F..%2Fetc",
  "%20",
  "%C3%A9t%C3%A9",
  "%F0%9F%90%A6",
  "'%20OR%201=1--",
  "1".repeat(3000),
  "a".repeat(300),
  "[]",
  "%5B%5D",
  "null",
  "undefined",
];

/** Fills a route's placeholders: a real id (from `ids`) or, with probability `junk`, junk. */
export function fillPath(
  path: string,
  ids: Record<string, string[]>,
  pick: <T>(items: readonly T[]) => T,
  chance: (p: number) => boolean,
): string {
  return path.replace(/\{([a-z_]+)\}/g, (_, kind: string) => {
    const real = ids[kind] ?? [];
    if (real.length && !chance(0.3)) return encodeURIComponent(pick(real));
    return pick(JUNK_IDS);
  });
}
