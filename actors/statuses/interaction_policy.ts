/**
 * Who may interact with a local status: the policy it is posted with, and
 * changing who may favourite, reply, boost or quote it without editing it
 * (Mastodon 4.5's PUT /api/v1/statuses/:id/interaction_policy, with
 * GoToSocial's `interaction_policy` besides `quote_approval_policy`), and
 * the quote policy arriving in a peer's Update.
 *
 * As in Mastodon this is not an edit: no new version in the history, no
 * `edited_at`. A local change federates as an Update of the Note (its
 * `interactionPolicy` carries the new rule), recorded in the same
 * transaction; an unchanged policy sends nothing. A private or direct status
 * can only be quoted by its author, whatever is asked, as when posting.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { statuses } from "../../db/schema/mod.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import type { StatusRow } from "./create.ts";
import { authoredStatus } from "./rows.ts";
import { invalid, StatusError } from "./errors.ts";
import { effectiveQuotePolicy, type QuotePolicy } from "../../model/quote_policy.ts";
import { isPublicVisibility, type Visibility } from "../../model/visibility.ts";
import {
  builtInDefaults,
  checkPolicy,
  effectivePolicy,
  type PolicyInput,
  storedDifference,
  type StoredPolicy,
  toMastodonQuoteWord,
} from "../../model/interaction_policy.ts";

/** What a local author may ask of a status's policy. */
export interface PolicyAsked {
  /** Mastodon's quote word (`quote_approval_policy`). */
  quotePolicy?: QuotePolicy;
  /** GoToSocial's InteractionPolicy; its `can_quote` wins over `quotePolicy`. */
  interactionPolicy?: PolicyInput;
}

/**
 * The policy a local status of `visibility` gets when `asked`, the
 * sub-policies not asked for taken from `defaults` (the author's defaults
 * when posting, the status's policy when changing it) and the quote word
 * over `quoteWord`; and Mastodon's quote word kept in step with its
 * `can_quote`. A private or direct status is quoted by its author alone,
 * whatever is asked (Mastodon's silent clamp). Only what differs from the
 * built-in defaults is stored. A refused policy is a 422 StatusError.
 */
export function resolvePolicy(
  asked: PolicyAsked,
  visibility: Visibility,
  defaults: Required<StoredPolicy>,
  quoteWord: QuotePolicy,
): { quotePolicy: QuotePolicy; interactionPolicy: StoredPolicy | null } {
  const word = effectiveQuotePolicy(visibility, asked.quotePolicy ?? quoteWord);
  const base = { ...defaults };
  if (asked.quotePolicy || !isPublicVisibility(visibility)) {
    base.can_quote = builtInDefaults(visibility, word).can_quote;
  }
  const checked = checkPolicy(asked.interactionPolicy ?? {}, visibility, base);
  if ("problem" in checked) throw invalid(`Interaction policy ${checked.problem}`);
  const policy = checked.policy;
  if (!isPublicVisibility(visibility)) {
    policy.can_quote = builtInDefaults(visibility, word).can_quote;
  }
  const quotePolicy = toMastodonQuoteWord(policy.can_quote);
  return { quotePolicy, interactionPolicy: storedDifference(policy, visibility, quotePolicy) };
}

/** The policy `asked` makes of an existing local status (see {@link resolvePolicy}). */
export function changedPolicy(status: StatusRow, asked: PolicyAsked) {
  const current = effectivePolicy(status) as Required<StoredPolicy>;
  return resolvePolicy(
    asked,
    status.visibility as Visibility,
    current,
    status.quoteApprovalPolicy as QuotePolicy,
  );
}

/**
 * Sets who may interact with one's own local status and returns the row.
 * Someone else's, a deleted or a missing status is a 404 StatusError.
 * Interactions already held or approved stay as they are.
 */
export async function setInteractionPolicy(
  db: Db,
  accountId: string,
  statusId: string,
  asked: PolicyAsked,
): Promise<StatusRow> {
  return await db.transaction(async (tx) => {
    const status = await authoredStatus(tx, accountId, statusId, { lock: true });
    const next = changedPolicy(status, asked);
    if (
      next.quotePolicy === status.quoteApprovalPolicy &&
      JSON.stringify(next.interactionPolicy) === JSON.stringify(status.interactionPolicy)
    ) return status;
    const [row] = await tx.update(statuses).set({
      quoteApprovalPolicy: next.quotePolicy,
      interactionPolicy: next.interactionPolicy,
    }).where(eq(statuses.id, status.id)).returning();
    if (status.local) await recordDelivery(tx, "statusUpdated", row.id, newId());
    return row;
  });
}

/**
 * Applies the policy a peer's Update states for its author's own status
 * (edit or not, as Mastodon's implicit update does). Anything that is not
 * the author's live remote status is ignored.
 */
export async function applyRemoteQuotePolicy(
  db: Db,
  accountId: string,
  statusId: string,
  policy: QuotePolicy,
  /** Who may like, reply and boost, as its Note now states (issue 34); absent: unchanged. */
  interactionPolicy?: StoredPolicy | null,
): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      const status = await authoredStatus(tx, accountId, statusId, { lock: true, remote: true });
      const next = effectiveQuotePolicy(status.visibility, policy);
      const sameRules = interactionPolicy === undefined ||
        JSON.stringify(interactionPolicy) === JSON.stringify(status.interactionPolicy);
      if (next === status.quoteApprovalPolicy && sameRules) return;
      await tx.update(statuses).set({
        quoteApprovalPolicy: next,
        ...(interactionPolicy === undefined ? {} : { interactionPolicy }),
      }).where(eq(statuses.id, status.id));
    });
  } catch (error) {
    if (error instanceof StatusError && error.status === 404) return;
    throw error;
  }
}
