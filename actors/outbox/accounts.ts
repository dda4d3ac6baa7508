/** Deliveries about a local account's own profile and existence. */
export interface AccountDeliveries {
  /**
   * The profile of a local account changed (name, bio, fields, images,
   * flags): its followers' servers get an Update of the actor. Call after
   * the change has committed; it only queues, so it returns quickly.
   */
  accountUpdated(accountId: string): Promise<void>;
  /**
   * A local account was created: its key pairs are made now rather than on
   * its first federated action (RSA key generation takes a few hundred ms).
   */
  accountCreated(accountId: string): Promise<void>;
}
