/**
 * Deliveries about interactions with statuses: favourites (Like), boosts
 * (Announce), their undoing, and pins (Add/Remove to the featured collection).
 *
 * Commands record snapshots of what they wrote or removed, in the same
 * transaction (recordDelivery): an undone favourite or boost no longer exists
 * in the database by the time the intent is relayed, and a rolled-back
 * change takes its intent with it. Snapshots are stored as JSON. The
 * implementation (federation/outbox/interactions.ts) delivers only from local
 * accounts; anything else is a no-op, so commands never need to check.
 */

/** A favourite, as it was when the command ran. */
export interface FavouriteSnapshot {
  /** The favourites row id. */
  id: string;
  /** The Like activity's IRI (ours for local favourites). */
  uri: string | null;
  /** Who favourited. */
  accountId: string;
  /** The favourited status. */
  statusId: string;
}

/** A boost, as it was when the command ran. */
export interface ReblogSnapshot {
  /** The boost's own statuses row id. */
  id: string;
  /** The Announce activity's IRI (the boost row's uri). */
  uri: string;
  /** Who boosted. */
  accountId: string;
  /** The boosted status. */
  reblogOfId: string;
  /** public, unlisted or private: decides the Announce's addressing. */
  visibility: string;
  /** ISO 8601 (snapshots are stored as JSON). */
  createdAt: string;
  /** The authorization that approved it, when its status's policy asked (issue 34). */
  approvedByUri?: string | null;
}

/** A pinned status, as it was when the command ran. */
export interface PinSnapshot {
  /** The status_pins row id (names the Add and Remove activities). */
  id: string;
  /** The owner (who is also the author of the status). */
  accountId: string;
  statusId: string;
}

/** Deliveries about interactions with statuses. */
export interface InteractionDeliveries {
  /** Like, from a local account to the status's remote author. */
  statusFavourited(favourite: FavouriteSnapshot): Promise<void>;
  /** Undo(Like), from a local account to the status's remote author. */
  statusUnfavourited(favourite: FavouriteSnapshot): Promise<void>;
  /** Announce, from a local account to its followers and the boosted status's remote author. */
  statusReblogged(reblog: ReblogSnapshot): Promise<void>;
  /** Undo(Announce), to the same audience as the Announce. */
  statusUnreblogged(reblog: ReblogSnapshot): Promise<void>;
  /** Add of a pinned status to the local account's featured collection, to its followers. */
  statusPinned(pin: PinSnapshot): Promise<void>;
  /** Remove of an unpinned status from the featured collection, to its followers. */
  statusUnpinned(pin: PinSnapshot): Promise<void>;
}
