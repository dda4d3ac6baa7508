/**
 * The FEP-7aa9 documents we serve (Mastodon 4.6's collections):
 * - `/users/{username}/collections/{id}`: a local collection
 *   (FeaturedCollection, its accepted members embedded);
 * - `/users/{username}/featured_collections` (`?page=N`): the account's
 *   collections, 5 per page, newest first, as Mastodon pages them;
 * - `/users/{username}/feature_authorizations/{itemId}`: a local member's
 *   stamp (FeatureAuthorization), while its consent stands; a revoked one
 *   is a 404, which is how the curator's server learns of it.
 *
 * Fedify 2.3.6 has no class for these types and keys its object
 * dispatchers by class, so they are plain routes beside Fedify (app.ts
 * reaches them when Fedify has nothing for the path), as the status pages
 * that answer ActivityPub are. In authorized-fetch mode they ask the
 * predicate every dispatcher asks (authorized_fetch.ts): a signed request
 * from a server we federate with, not blocked by the owner.
 */
import type { AppContext } from "../../context.ts";
import { countCollectionsOf } from "../../db/queries/collections.ts";
import { findLocalAccountByIdentifier } from "./local_actors.ts";
import { authorizeFetch, unauthorizedFetch } from "./authorized_fetch.ts";
import { featureAuthorizationUri, featuredCollectionsUri } from "../../model/collection_uris.ts";
import {
  FEATURED_COLLECTIONS_PAGE_SIZE,
  loadFeaturedCollection,
  loadFeaturedCollectionsPage,
  loadStamp,
} from "../objects/featured_collection_rows.ts";
import {
  featureAuthorizationDocument,
  featuredCollectionDocument,
  featuredCollectionsDocument,
  featuredCollectionsPage,
} from "../objects/featured_collections.ts";

const ROUTES = {
  collection: /^\/users\/([^/]+)\/collections\/([0-9]{1,19})\/?$/,
  list: /^\/users\/([^/]+)\/featured_collections\/?$/,
  stamp: /^\/users\/([^/]+)\/feature_authorizations\/([0-9]{1,19})\/?$/,
};

/** Pages asked for at most (Mastodon accounts hold a handful of collections). */
const MAX_PAGE = 1_000;

function activityJson(document: unknown, status = 200): Response {
  return new Response(JSON.stringify(document), {
    status,
    headers: { "Content-Type": "application/activity+json", Vary: "Accept" },
  });
}

function notFound(): Response {
  return new Response(JSON.stringify({ error: "Record not found" }), {
    status: 404,
    headers: { "Content-Type": "application/json; charset=utf-8" },
  });
}

/**
 * The answer to a GET of one of these documents; null when the path is
 * not one of them (the caller goes on to its other routes).
 */
export async function serveFeaturedCollections(
  app: AppContext,
  request: Request,
): Promise<Response | null> {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  const url = new URL(request.url);
  const path = url.pathname;
  const match = ROUTES.collection.exec(path) ?? ROUTES.list.exec(path) ??
    ROUTES.stamp.exec(path);
  if (!match) return null;
  const db = app.database.db;
  const origin = app.config.origin;
  const owner = await findLocalAccountByIdentifier(db, decodeURIComponent(match[1]));
  if (!owner || owner.deletedAt || owner.suspendedAt) return notFound();
  if (!await authorizeFetch(app.federation.createContext(request, app), owner.username)) {
    return unauthorizedFetch();
  }
  if (ROUTES.collection.test(path)) {
    const collection = await loadFeaturedCollection(db, origin, match[2]);
    if (!collection || collection.ownerUri !== `${origin}/users/${owner.username}`) {
      return notFound();
    }
    return activityJson(featuredCollectionDocument(collection));
  }
  if (ROUTES.stamp.test(path)) {
    const stamp = await loadStamp(db, origin, owner.username, match[2]);
    if (!stamp) return notFound();
    return activityJson(featureAuthorizationDocument({
      id: featureAuthorizationUri(origin, owner.username, stamp.itemId),
      collectionUri: stamp.collectionUri,
      memberUri: stamp.memberUri,
    }));
  }
  return await listing(app, owner.id, featuredCollectionsUri(origin, owner.username), url);
}

/** The account's `featuredCollections`, or one of its pages. */
async function listing(
  app: AppContext,
  ownerId: string,
  id: string,
  url: URL,
): Promise<Response> {
  const pageParam = url.searchParams.get("page");
  const page = pageParam == null ? null : Number(pageParam);
  if (page != null && !(Number.isInteger(page) && page >= 1 && page <= MAX_PAGE)) {
    return notFound();
  }
  if (page == null) {
    const total = await countCollectionsOf(app.database.db, ownerId);
    return activityJson(featuredCollectionsDocument({ id, totalItems: total }));
  }
  const { total, collections } = await loadFeaturedCollectionsPage(
    app.database.db,
    app.config.origin,
    ownerId,
    page,
  );
  return activityJson(featuredCollectionsPage({
    id,
    page,
    totalItems: total,
    hasNext: page * FEATURED_COLLECTIONS_PAGE_SIZE < total,
  }, collections));
}
