/**
 * Posting a status: the one command behind POST /api/v1/statuses, scheduled
 * publication and statuses that arrive from other servers.
 *
 * A local input carries the typed text, parsed once and checked, resolved
 * and rendered from that parse (prepare_local.ts); a remote input carries
 * sanitized HTML, its IRI and the accounts and tags federation/ already
 * resolved (prepare_remote.ts). Both end in one transaction
 * (write_status.ts) that writes the status, its mentions, tags, media links,
 * poll and quote, bumps the counters, fills the feeds (fanOutStatus) and
 * records notifications (notifyMentions, notify), and for a local status
 * records the Create for the relay (recordDelivery), so the delivery exists
 * exactly when the status does.
 *
 * Decisions (Mastodon's PostStatusService unless said otherwise):
 * - A reply must be to a status the author may see (404 otherwise, with
 *   Mastodon's message); a reply to a boost replies to the boosted status.
 * - Visibility defaults to the author's preference (a locked account's
 *   default is private). quote_approval_policy defaults to the preference and
 *   is `nobody` for private and direct statuses.
 * - Quotes follow the 4.5 rules: authors may quote their own posts except
 *   direct ones; others need a public or unlisted post whose policy lets
 *   them (public, or followers when they follow). Quoting one's own private
 *   post makes the quote private (or direct). A direct quote must mention
 *   the quoted author. Local quotes are accepted at once, remote ones wait
 *   for the other server (pending). Without a link to the quoted post in the
 *   text, a `quote-inline` RE: paragraph is prepended.
 * - Idempotency-Key: the same key from the same account within an hour
 *   answers the first status; the key row is written in the same
 *   transaction, so concurrent duplicates wait for the first and reuse it.
 * - statuses_count counts every status but direct ones, as Mastodon.
 */
import type { PolicyInput, StoredPolicy } from "../../model/interaction_policy.ts";
import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { statuses } from "../../db/schema/mod.ts";
import type { RemoteAccountResolver } from "../formatting/mentions.ts";
import type { RemoteEmojiInput } from "../emoji/links.ts";
import type { MissingLinks } from "../outbox/status_links.ts";
import { findIdempotentStatus } from "./idempotency.ts";
import { prepareLocal } from "./prepare_local.ts";
import { prepareRemote } from "./prepare_remote.ts";
import type { RemoteMediaInput } from "./rows.ts";
import type { PollInput } from "./validation.ts";
import type { Visibility } from "../../model/visibility.ts";
import type { QuotePolicy } from "../../model/quote_policy.ts";
import { Duplicate, writeStatus } from "./write_status.ts";

export { IDEMPOTENCY_TTL_MS } from "./idempotency.ts";
export type { RemoteMediaInput } from "./rows.ts";

export type StatusRow = typeof statuses.$inferSelect;

/** What a local author asks to post. */
export interface LocalStatusInput {
  local: true;
  accountId: string;
  /** The typed text (may be blank with media or a poll). */
  text: string;
  applicationId?: string | null;
  mediaIds?: string[];
  poll?: PollInput | null;
  inReplyToId?: string | null;
  sensitive?: boolean;
  spoilerText?: string;
  /** Absent: the author's default. */
  visibility?: Visibility;
  /** Absent: the author's default language, if any. */
  language?: string | null;
  quotedStatusId?: string | null;
  /** Absent: the author's default. */
  quoteApprovalPolicy?: QuotePolicy;
  /**
   * Who may interact with it (GoToSocial's InteractionPolicy, issue 34); a
   * sub-policy left out is the author's default for the visibility, and
   * its `can_quote` wins over `quoteApprovalPolicy`.
   */
  interactionPolicy?: PolicyInput;
  idempotencyKey?: string | null;
  /** When publishing a scheduled status: its id (its reserved media may be used). */
  scheduledStatusId?: string | null;
  /** Looks up remote accounts mentioned but not yet known (WebFinger). */
  resolveRemoteAccount?: RemoteAccountResolver;
  /** Mastodon 4.5's `allowed_mentions`: the only accounts it may mention (absent: any). */
  allowedMentions?: string[] | null;
}

/** A status that arrived from another server, already sanitized and resolved. */
export interface RemoteStatusInput {
  local: false;
  accountId: string;
  /** The favourite, reply and boost policies its server states (null: none, unaware). */
  interactionPolicy?: StoredPolicy | null;
  uri: string;
  url?: string | null;
  /** Sanitized HTML. */
  content: string;
  spoilerText?: string;
  sensitive?: boolean;
  visibility: Visibility;
  language?: string | null;
  inReplyToId?: string | null;
  inReplyToUri?: string | null;
  /**
   * The thread's `context` IRI, when the other server sends one and owns it
   * (federation/ checks that). Used only when the status has no stored parent.
   */
  conversationUri?: string | null;
  mentionedAccountIds?: string[];
  tagNames?: string[];
  media?: RemoteMediaInput[];
  poll?: {
    options: string[];
    tallies?: number[];
    multiple: boolean;
    expiresAt: Date | null;
    votersCount?: number;
    uri?: string | null;
  } | null;
  quotedStatusId?: string | null;
  /** accepted when the quoted author's server approved it; pending otherwise. */
  quoteState?: string;
  quoteApprovalPolicy?: QuotePolicy;
  /** Emoji tags of the object (kept when the text uses them). */
  emojis?: RemoteEmojiInput[];
  /** The page its `Link` attachment names: the link of its preview card (FEP-8967). */
  cardLink?: string | null;
  createdAt?: Date;
  /** The parent or quoted post it names that were not fetched (over budget): fetched later. */
  missingLinks?: MissingLinks | null;
  /**
   * The caller looked the IRI up just before and found nothing stored: it
   * is not looked up again. A row stored meanwhile fails the insert (a
   * unique violation), which the caller handles.
   */
  uriChecked?: boolean;
  /**
   * A reply between two other servers whose approval could not be checked
   * yet (`missingLinks.verify`): stored held, hidden from everyone, until
   * the status_links job verifies it.
   */
  unverified?: boolean;
  /**
   * The proof of a reply between two other servers, already verified
   * (federation/remote/authorizations.ts): stored with the row, so the
   * reply is never seen, streamed or notified without it.
   */
  approvedByUri?: string | null;
}

export type CreateStatusInput = LocalStatusInput | RemoteStatusInput;

/**
 * Posts a status (local or remote) and returns its row. For a remote input
 * whose IRI is already stored, the stored row is returned unchanged.
 * Throws a StatusError (errors.ts) for refused input.
 */
export async function createStatus(
  ctx: AppContext,
  input: CreateStatusInput,
): Promise<StatusRow> {
  const db = ctx.database.db;
  if (input.local && input.idempotencyKey) {
    const earlier = await findIdempotentStatus(db, input.accountId, input.idempotencyKey);
    if (earlier) return earlier;
  }
  if (!input.local && !input.uriChecked) {
    const [known] = await db.select().from(statuses).where(eq(statuses.uri, input.uri));
    if (known) return known;
  }
  const p = input.local ? await prepareLocal(ctx, input) : await prepareRemote(ctx, input);
  try {
    return await db.transaction(async (tx) =>
      await writeStatus(tx, ctx.config.origin, input, p, ctx.config.emailSubscriptions)
    );
  } catch (error) {
    if (error instanceof Duplicate) {
      const [row] = await db.select().from(statuses).where(eq(statuses.id, error.statusId));
      if (row) return row;
    }
    throw error;
  }
}
