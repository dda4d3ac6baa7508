/**
 * Remote handles that another actor took over (Mastodon 4.7): when WebFinger
 * confirms that a handle now names another actor, the account that held it
 * is renamed `!<its id>` until a refresh of its actor finds its new handle
 * (or finds it gone). `!` never appears in a WebFinger username, so the
 * placeholder collides with no real handle; the domain is kept, so domain
 * moderation still finds the account.
 */

/** The placeholder username of the account with this id. */
export function invalidatedUsername(accountId: string): string {
  return `!${accountId}`;
}

/**
 * The username shown to clients: an invalidated one as its id (the API never
 * shows the `!` form, as Mastodon's), any other as it is.
 */
export function shownUsername(username: string): string {
  return username.startsWith("!") ? username.slice(1) : username;
}
