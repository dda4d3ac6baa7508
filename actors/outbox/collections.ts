/**
 * Deliveries about collections (FEP-7aa9 FeaturedCollection, Mastodon 4.6).
 * The commands of actors/collections/ (and the inbox's, for remote
 * collections and requests) record these; federation/outbox/collections.ts
 * builds the documents from the stored rows when relayed. Deletions carry
 * what the activity needs after the rows are gone.
 */

/** What a member's server answers to a FeatureRequest. */
export type FeatureRequestAnswer =
  /** Accepted: `itemId` is our row of that membership (a remote collection, our member). */
  | { accepted: true; itemId: string }
  /**
   * Refused: no row is kept, so the intent carries the request's id, the
   * local member, the remote curator and `rejectionId` (a fresh snowflake
   * naming the Reject).
   */
  | {
    accepted: false;
    rejectionId: string;
    memberId: string;
    curatorId: string;
    requestUri: string;
  };

export interface CollectionDeliveries {
  /** A local collection was made: Add(FeaturedCollection) to the owner's followers. */
  collectionCreated(collectionId: string): Promise<void>;
  /**
   * A local collection changed: Update(FeaturedCollection) to the owner's
   * followers, named `…#updates/<updateStamp>` (the new `updated_at` in
   * milliseconds since the epoch, recorded with the intent: two updates within
   * one second stay two activities).
   */
  collectionUpdated(collectionId: string, updateStamp: string): Promise<void>;
  /**
   * A local collection was deleted (recorded before its rows go): Remove of
   * `uri` from the owner's `featuredCollections`, to its followers.
   */
  collectionDeleted(
    deleted: { collectionId: string; ownerId: string; uri: string },
  ): Promise<void>;
  /** An item of a local collection became accepted: Add(FeaturedItem) to the owner's followers. */
  collectionItemAdded(itemId: string): Promise<void>;
  /**
   * An item left a local collection (removed by the owner, revoked by its
   * member): Remove of `itemUri` from the collection, to the owner's followers.
   */
  collectionItemRemoved(
    removed: { itemUri: string; collectionId: string; ownerId: string },
  ): Promise<void>;
  /** A remote account was added to a local collection: FeatureRequest to its inbox. */
  featureRequested(itemId: string): Promise<void>;
  /** Our member's answer to a remote curator's FeatureRequest: Accept or Reject to its inbox. */
  featureRequestAnswered(answer: FeatureRequestAnswer): Promise<void>;
  /**
   * Our member left a remote collection: Delete of its FeatureAuthorization
   * (`…/feature_authorizations/<itemId>`) to the curator's inbox and the
   * member's followers.
   */
  featureAuthorizationRevoked(
    revoked: { itemId: string; memberId: string; collectionUri: string; curatorId: string },
  ): Promise<void>;
}
