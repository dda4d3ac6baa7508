/**
 * Background work about remote statuses stored without their parent or
 * quoted post because fetching them was over the activity's fetch budget
 * (federation/fetch/budget.ts). federation/ records it through
 * createStatus's input, in the status's own transaction, so a stored status
 * always has its follow-up; the implementation (federation/outbox/
 * status_links.ts) queues a job on the durable queue (federation/
 * status_links.ts runs it).
 */

/** What a remote status names but could not have fetched in time. */
export interface MissingLinks {
  /** The parent (the status's in_reply_to_uri) is to be fetched and linked. */
  parent: boolean;
  /** The quoted post's IRI, when it is to be fetched and linked. */
  quoteUri: string | null;
  /** The quote's approval stamp (FEP-044f `quoteAuthorization`), if the status carried one. */
  stampUri: string | null;
  /** The thread level of the missing statuses (parents are followed to MAX_DEPTH in all). */
  depth: number;
}

/** Background work about remote statuses' links. */
export interface StatusLinkJobs {
  /** Fetch what a stored remote status names but lacks, and link it. */
  statusLinksRequested(statusId: string, missing: MissingLinks): Promise<void>;
}
