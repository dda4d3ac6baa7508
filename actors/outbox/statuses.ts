/**
 * Deliveries about local statuses themselves: Create, Update and Delete of
 * the Note (or Question), and the quote approval exchange (FEP-044f).
 *
 * The status commands record these with recordDelivery (actors/outbox/deliveries.ts)
 * in their transaction; the implementation (federation/outbox/statuses.ts)
 * builds everything from the stored rows when the intent is relayed. A
 * deleted status keeps its row (marked deleted) and its mentions, so the
 * Delete reaches the same audience as the Create. Remote statuses are
 * ignored, so commands never need to check.
 */

/** A quote whose approval was withdrawn, as it was when the command ran. */
export interface QuoteRevocationSnapshot {
  /** The quotes row id (names the stamp). */
  id: string;
  /** The quoted (local) status. */
  quotedStatusId: string;
  /** The quoting status. */
  statusId: string;
  /** The stamp's IRI, when one was issued. */
  approvalUri: string | null;
}

/** The answer to a remote account's QuoteRequest for a local status (FEP-044f). */
export interface QuoteRequestAnswer {
  /** The QuoteRequest's IRI, quoted back in the answer. */
  requestUri: string;
  /** Who asked (a remote account): the answer goes to them. */
  requesterId: string;
  /** The local status they asked to quote; its author answers. */
  quotedStatusId: string;
  /** Their quote post (the request's instrument). */
  instrumentUri: string;
  /** The QuoteAuthorization stamp's IRI when accepted (Accept); null for a Reject. */
  stampUri: string | null;
}

/** Deliveries about local statuses. */
export interface StatusFederationDeliveries {
  /** A local status was posted: Create(Note) to its audience. */
  statusCreated(statusId: string): Promise<void>;
  /**
   * A local status was edited (or its quote approved): Update(Note).
   * `updateId` (a fresh id, recorded with the intent) names the activity, so
   * a relayed-twice Update carries the same id and receivers drop the copy.
   */
  statusUpdated(statusId: string, updateId: string): Promise<void>;
  /** A local status was deleted (the row is kept, marked deleted): Delete(Note). */
  statusDeleted(statusId: string): Promise<void>;
  /** Accept (with the stamp as `result`) or Reject of a remote QuoteRequest, to the requester. */
  quoteRequestAnswered(answer: QuoteRequestAnswer): Promise<void>;
  /** Delete of a QuoteAuthorization stamp, to the quoting status's author and followers. */
  quoteRevoked(quote: QuoteRevocationSnapshot): Promise<void>;
}
