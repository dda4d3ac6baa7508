/**
 * Deliveries about relationships between accounts (follow, accept, reject,
 * block, undo) and the Delete of a local account, which goes to the servers
 * of the accounts it was related to.
 *
 * Commands record snapshots of the rows they wrote or removed, in the same
 * transaction (recordDelivery): a removed row can no longer be read when the
 * intent is relayed, and a rolled-back change takes its intent with it. The implementation
 * (federation/outbox/relationships.ts) delivers only what crosses servers:
 * a local sender and a remote recipient; anything else is a no-op.
 */

/** A follow or follow request, as it was when the command ran. */
export interface FollowSnapshot {
  /** The follows or follow_requests row id. */
  id: string;
  /** The Follow activity's IRI, when known (remote follows keep theirs). */
  uri: string | null;
  /** The follower. */
  accountId: string;
  /** The followed account. */
  targetAccountId: string;
}

/** A block, as it was when the command ran. */
export interface BlockSnapshot {
  id: string;
  uri: string | null;
  /** The blocker. */
  accountId: string;
  targetAccountId: string;
}

/** A remote actor that should hear about a local account's deletion. */
export interface DeletionRecipient {
  uri: string;
  inboxUrl: string;
  sharedInboxUrl: string | null;
}

/** Deliveries about relationships. */
export interface RelationshipDeliveries {
  /** Follow, from a local follower to a remote account (the request is pending). */
  followRequested(follow: FollowSnapshot): Promise<void>;
  /** Undo(Follow), from a local follower to a remote account (unfollow, cancelled request). */
  followUndone(follow: FollowSnapshot): Promise<void>;
  /** Accept(Follow), from a local account to its remote follower. */
  followAccepted(follow: FollowSnapshot): Promise<void>;
  /** Reject(Follow), from a local account to a remote follower or requester. */
  followRejected(follow: FollowSnapshot): Promise<void>;
  /** Block, from a local account to a remote one. */
  blocked(block: BlockSnapshot): Promise<void>;
  /** Undo(Block), from a local account to a remote one. */
  blockUndone(block: BlockSnapshot): Promise<void>;
  /**
   * Delete(Person) of a deleted local account, to the servers of the remote
   * accounts it was related to (captured before the rows were removed).
   */
  accountDeleted(accountId: string, recipients: DeletionRecipient[]): Promise<void>;
}
