/**
 * What a remote status stored without its parent or quoted post lacks,
 * because fetching them was over the activity's fetch budget
 * (federation/fetch/budget.ts). federation/ passes it through
 * createStatus's input, which records the `status_links` job (jobs.ts) in
 * the status's own transaction, so a stored status always has its
 * follow-up (federation/remote/status_links.ts runs it).
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
  /**
   * The approval the reply names (issue 34): checked when its parent is
   * linked, or, with `verify`, when the fetch budget refused checking it at
   * once (the reply is held, hidden, until then).
   */
  claimUri?: string | null;
  verify?: boolean;
}

/** No link missing: the base of a job that only checks an approval. */
export const NOTHING_MISSING: Readonly<MissingLinks> = Object.freeze({
  parent: false,
  quoteUri: null,
  stampUri: null,
  depth: 0,
});
