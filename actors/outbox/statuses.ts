/**
 * Deliveries about local statuses themselves: Create, Update and Delete of
 * the Note (or Question), and the quote approval exchange (FEP-044f).
 *
 * The three status deliveries are those the status commands already call
 * through actors/statuses/deliveries.ts (`statusCreated`, `statusUpdated`,
 * `statusDeleted`, after their transaction commits); the implementation
 * (federation/outbox/statuses.ts) builds everything from the stored rows. A
 * deleted status keeps its row (marked deleted) and its mentions, so the
 * Delete reaches the same audience as the Create. Remote statuses are
 * ignored, so commands never need to check.
 */
import type { StatusDeliveries } from "../statuses/deliveries.ts";

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

/** Deliveries about local statuses. */
export interface StatusFederationDeliveries extends StatusDeliveries {
  /** Delete of a QuoteAuthorization stamp, to the quoting status's author and followers. */
  quoteRevoked(quote: QuoteRevocationSnapshot): Promise<void>;
}
