/**
 * Who may quote a status (Mastodon 4.5's quote policies): the policy words,
 * the policy a status actually has, and whether one account may quote it.
 * Posting, editing, the interaction policy change, answering a peer's
 * QuoteRequest, the Note's `interactionPolicy` and the Status entity's
 * `quote_approval` all ask here.
 */

/** Who the author lets quote a status: anyone, their followers, or nobody but themselves. */
export const QUOTE_POLICIES = ["public", "followers", "nobody"] as const;
export type QuotePolicy = typeof QUOTE_POLICIES[number];

/** Whether `value` is a quote policy. */
export function isQuotePolicy(value: string): value is QuotePolicy {
  return (QUOTE_POLICIES as readonly string[]).includes(value);
}

/**
 * The policy a status of `visibility` has when `wanted` is asked: a private
 * or direct status is quoted by its author alone, whatever is asked.
 */
export function effectiveQuotePolicy(visibility: string, wanted: QuotePolicy): QuotePolicy {
  return visibility === "private" || visibility === "direct" ? "nobody" : wanted;
}

/** What a status says about being quoted. */
export interface Quotable {
  accountId: string;
  visibility: string;
  quoteApprovalPolicy: string;
}

/**
 * Whether `status` is closed to quotes by `quoterId` whatever its policy: a
 * direct status is never quoted, not even by its author; a private one only
 * by its author.
 */
export function closedToQuotes(status: Quotable, quoterId: string): boolean {
  return status.visibility === "direct" ||
    (status.visibility === "private" && status.accountId !== quoterId);
}

/**
 * Whether the account `quoterId` may quote `status` (Mastodon's
 * StatusPolicy#quote?): not when it is {@link closedToQuotes}; the author
 * always otherwise; others as its effective policy says, where
 * `"if_follower"` means only if they follow the author.
 */
export function quotePermission(status: Quotable, quoterId: string): "yes" | "no" | "if_follower" {
  if (closedToQuotes(status, quoterId)) return "no";
  if (status.accountId === quoterId) return "yes";
  const policy = effectiveQuotePolicy(status.visibility, status.quoteApprovalPolicy as QuotePolicy);
  return policy === "public" ? "yes" : policy === "followers" ? "if_follower" : "no";
}
