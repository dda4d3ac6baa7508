/** Deliveries about a local account's own profile and existence. */
export interface AccountDeliveries {
  /**
   * The profile of a local account changed (name, bio, fields, images,
   * flags): its followers' servers get an Update of the actor. Call after
   * the change has committed; it only queues, so it returns quickly.
   */
  accountUpdated(accountId: string): Promise<void>;
}
