/** Deliveries about a local account's own profile and existence. */
export interface AccountDeliveries {
  /**
   * The profile of a local account changed (name, bio, fields, images,
   * flags): its followers' servers get an Update of the actor. `updateId`
   * (fresh, recorded with the intent) names the activity.
   */
  accountUpdated(accountId: string, updateId: string): Promise<void>;
  /**
   * A local account was created: its key pairs are made now rather than on
   * its first federated action (RSA key generation takes a few hundred ms).
   */
  accountCreated(accountId: string): Promise<void>;
  /**
   * A local account moved to `targetId` (actors/accounts/moves.ts): its followers'
   * servers get a Move (actor = object = the account, target = the new
   * account). `moveId` (fresh, recorded with the intent) names the activity.
   */
  accountMoved(accountId: string, targetId: string, moveId: string): Promise<void>;
}
