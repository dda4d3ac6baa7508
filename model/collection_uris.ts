/**
 * Where our collections (FEP-7aa9) live: the ids of the documents we serve
 * and send, and the pages people open. Receivers only compare these ids,
 * never parse them (Mastodon's differ: `/ap/users/:account_id/…`). Pure
 * functions of the origin and the rows; numeric ids keep them apart from
 * the actor's `collections/featured` and `collections/tags`.
 */

/** A collection's ActivityPub id. */
export function collectionUri(origin: string, owner: string, collectionId: string): string {
  return `${origin}/users/${owner}/collections/${collectionId}`;
}

/** A collection's page on the web face. */
export function collectionUrl(origin: string, owner: string, collectionId: string): string {
  return `${origin}/@${owner}/collections/${collectionId}`;
}

/** An item of one of our collections (its FeaturedItem id). */
export function collectionItemUri(
  origin: string,
  owner: string,
  collectionId: string,
  itemId: string,
): string {
  return `${collectionUri(origin, owner, collectionId)}/items/${itemId}`;
}

/** An actor's `featuredCollections` (its collections, paged). */
export function featuredCollectionsUri(origin: string, username: string): string {
  return `${origin}/users/${username}/featured_collections`;
}

/** A FeatureRequest we send (not dereferenceable, as Mastodon's). */
export function featureRequestUri(origin: string, curator: string, uuid: string): string {
  return `${origin}/users/${curator}/feature_requests/${uuid}`;
}

/**
 * The stamp by which our member consents to be in a remote collection
 * (`itemId`: our row of that membership).
 */
export function featureAuthorizationUri(origin: string, member: string, itemId: string): string {
  return `${origin}/users/${member}/feature_authorizations/${itemId}`;
}
