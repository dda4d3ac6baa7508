/**
 * Background work about preview cards. Status commands record it in their
 * transaction, like a delivery (actors/cards/request.ts decides when); the
 * implementation (federation/outbox/cards.ts) queues a job on the durable
 * queue the workers run, so a link is never fetched inside a request.
 */

/** Background work about preview cards. */
export interface LinkCardJobs {
  /** Fetch (or refresh) the preview card of a status's link, and link it to the status. */
  linkCardRequested(statusId: string): Promise<void>;
}
