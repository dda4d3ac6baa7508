/** The Token entity returned by POST /oauth/token (and, later, by registration). */

export interface Token {
  access_token: string;
  token_type: "Bearer";
  /** Space-separated scopes. */
  scope: string;
  /** Unix time in seconds. */
  created_at: number;
}

/** Serializes a freshly issued token (the plain value exists only now). */
export function tokenEntity(
  plain: string,
  row: { scopes: string[]; createdAt: Date },
): Token {
  return {
    access_token: plain,
    token_type: "Bearer",
    scope: row.scopes.join(" "),
    created_at: Math.floor(row.createdAt.getTime() / 1000),
  };
}
